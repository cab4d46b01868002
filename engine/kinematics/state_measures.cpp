#include "engine/kinematics/state_measures.h"

#include <cmath>

#include "engine/expr/expression.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/dual.h"
#include "engine/model/model.h"

namespace engine {
namespace {

template <class S>
using Vec3Of = Eigen::Matrix<S, 3, 1>;
template <class S>
using Mat3Of = Eigen::Matrix<S, 3, 3>;

// A measure's frame in the world: the world itself when not given.
template <class S>
MarkerFrameOf<S> frameOf(const MeasureFrame& f, const std::vector<BodyFrameOf<S>>& frames) {
    MarkerFrameOf<S> out;
    if (!f.given) return out;
    if (f.body == kGround) {
        out.R = f.X_BM.rotationMatrix().template cast<S>();
        out.p = f.X_BM.p.template cast<S>();
        return out;
    }
    const BodyFrameOf<S>& b = frames[static_cast<std::size_t>(f.body)];
    const Vec3Of<S> s = b.R * f.X_BM.p.template cast<S>();
    out.R = b.R * f.X_BM.rotationMatrix().template cast<S>();
    out.p = b.r + s;
    out.v = b.v + b.w.cross(s);
    out.w = b.w;
    return out;
}

template <class S>
S norm(const Vec3Of<S>& x) {
    using std::sqrt;
    return sqrt(x.squaredNorm());
}

}  // namespace

template <class S>
S measureValue(const Model& model, const MeasureModel& m, const std::vector<BodyFrameOf<S>>& frames,
               const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged) {
    using std::atan2;
    if (measureIsLagged(m.kind)) return S(m.slot < lagged.size() ? lagged(m.slot) : 0.0);
    if (m.kind == MeasureKind::Q || m.kind == MeasureKind::QD) {
        const CoordinateMotion<S> c = jointCoordinateMotion(model, frames, m.joint, m.coordinate);
        if (m.kind == MeasureKind::QD) return c.rate;
        const JointModel& joint = model.joints[static_cast<std::size_t>(m.joint)];
        if (joint.coordinates[static_cast<std::size_t>(m.coordinate)] == JointAxis::Rotation &&
            jointCoordinates.size() > m.slot) {
            // unwindAngle(): whole turns added, a constant shift
            const double wrapped = valueOf(c.value);
            return c.value +
                   2.0 * kPi * std::round((jointCoordinates(m.slot) - wrapped) / (2.0 * kPi));
        }
        return c.value;
    }
    const MarkerFrameOf<S> i = frameOf(m.frames[0], frames);
    const MarkerFrameOf<S> j = frameOf(m.frames[1], frames);
    const Mat3Of<S> Rk = m.frames[2].given ? frameOf(m.frames[2], frames).R : Mat3Of<S>::Identity();
    const Vec3Of<S> d = i.p - j.p;
    switch (m.kind) {
    case MeasureKind::DM:
        return norm(d);
    case MeasureKind::DX:
    case MeasureKind::DY:
    case MeasureKind::DZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::DX)).dot(d);
    case MeasureKind::VR: {
        const S length = norm(d);
        return valueOf(length) > 0.0 ? S((i.v - j.v).dot(d) / length) : S(0.0);
    }
    case MeasureKind::VM:
        return norm(Vec3Of<S>(i.v - j.v));
    case MeasureKind::VX:
    case MeasureKind::VY:
    case MeasureKind::VZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::VX)).dot(i.v - j.v);
    case MeasureKind::WM:
        return norm(Vec3Of<S>(i.w - j.w));
    case MeasureKind::WX:
    case MeasureKind::WY:
    case MeasureKind::WZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::WX)).dot(i.w - j.w);
    case MeasureKind::AX:
        return atan2(-i.R.col(2).dot(j.R.col(1)), i.R.col(2).dot(j.R.col(2)));
    case MeasureKind::AY:
        return atan2(i.R.col(2).dot(j.R.col(0)), i.R.col(2).dot(j.R.col(2)));
    case MeasureKind::AZ:
        return atan2(i.R.col(0).dot(j.R.col(1)), i.R.col(0).dot(j.R.col(0)));
    default:  // q, qd and the lagged measures: above
        break;
    }
    return S(0.0);
}

template <class S>
void evaluateStateValues(const Model& model, double t, const std::vector<BodyFrameOf<S>>& frames,
                         const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                         std::vector<S>& values) {
    const std::size_t variables = model.variables.size();
    values.resize(variables + model.measures.size());
    for (std::size_t k = 0; k < model.measures.size(); ++k)
        values[variables + k] =
            measureValue(model, model.measures[k], frames, jointCoordinates, lagged);
    for (std::size_t k = 0; k < variables; ++k) {
        const VariableModel& v = model.variables[k];
        values[k] = evalStateExpression(v.expression, v.inputs, t, values);
    }
}

template double measureValue(const Model&, const MeasureModel&, const std::vector<BodyFrame>&,
                             const Eigen::VectorXd&, const Eigen::VectorXd&);
template Dual measureValue(const Model&, const MeasureModel&, const std::vector<BodyFrameOf<Dual>>&,
                           const Eigen::VectorXd&, const Eigen::VectorXd&);
template void evaluateStateValues(const Model&, double, const std::vector<BodyFrame>&,
                                  const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  std::vector<double>&);
template void evaluateStateValues(const Model&, double, const std::vector<BodyFrameOf<Dual>>&,
                                  const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  std::vector<Dual>&);

double evalStateExpression(const Expression& expression, const std::vector<int>& inputs, double t,
                           const std::vector<double>& values) {
    if (inputs.empty()) return expression.eval(t);
    double buffer[16];
    std::vector<double> more;
    double* in = buffer;
    if (inputs.size() > 16) {
        more.resize(inputs.size());
        in = more.data();
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
        in[k] = values[static_cast<std::size_t>(inputs[k])];
    return expression.eval(t, in);
}

Dual evalStateExpression(const Expression& expression, const std::vector<int>& inputs, double t,
                         const std::vector<Dual>& values) {
    if (inputs.empty()) return Dual(expression.eval(t));
    thread_local std::vector<double> in, along;
    in.resize(inputs.size());
    along.resize(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        in[k] = values[static_cast<std::size_t>(inputs[k])].a;
        along[k] = values[static_cast<std::size_t>(inputs[k])].b;
    }
    double value = 0.0;
    const double tangent = expression.inputTangent(t, in.data(), along.data(), &value);
    return Dual(value, tangent);
}

}  // namespace engine
