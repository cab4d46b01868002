#include "engine/kinematics/kinematics.h"

#include "engine/math/dual.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/solver/worker_pool.h"
#include "engine/state/state.h"

namespace engine {

BodyFrame bodyFrame(const Eigen::VectorXd& q, const Eigen::VectorXd& v, int b) {
    BodyFrame f;
    f.R = rotationOfStored(layout::orientation(q, b).data());
    f.r = bodyPosition(q, b);
    f.v = layout::linear(v, b);
    f.w = f.R * layout::angular(v, b);
    return f;
}

void computeBodyFrames(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       std::vector<BodyFrame>& frames, const std::vector<char>* held) {
    frames.resize(static_cast<std::size_t>(model.bodyCount()));
    // (each body on its own: on the engine's threads for many)
    runRanges(frames.size(), kParallelBodies, [&](std::size_t first, std::size_t last) {
        for (std::size_t b = first; b < last; ++b)
            if (!held || !(*held)[b]) frames[b] = bodyFrame(q, v, static_cast<int>(b));
    });
}

template <class S>
MarkerFrameOf<S> markerFrame(const Model& model, const std::vector<BodyFrameOf<S>>& frames,
                             int marker) {
    const MarkerModel& m = model.markers[static_cast<std::size_t>(marker)];
    MarkerFrameOf<S> out;
    if (m.body == kGround) {
        out.R = m.X_BM.rotationMatrix().template cast<S>();
        out.p = m.X_BM.p.template cast<S>();
        return out;
    }
    const BodyFrameOf<S>& f = frames[static_cast<std::size_t>(m.body)];
    const Eigen::Matrix<S, 3, 1> s = f.R * m.X_BM.p.template cast<S>();
    out.R = f.R * m.X_BM.rotationMatrix().template cast<S>();
    out.p = f.r + s;
    out.v = f.v + f.w.cross(s);
    out.w = f.w;
    return out;
}

template MarkerFrameOf<double> markerFrame(const Model&, const std::vector<BodyFrameOf<double>>&,
                                           int);
template MarkerFrameOf<Dual> markerFrame(const Model&, const std::vector<BodyFrameOf<Dual>>&, int);

}  // namespace engine
