#include "ui/render/shown_frame.h"

#include <algorithm>

#include "engine/analysis/outputs.h"
#include "engine/analysis/statics.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "engine/state/state.h"
#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_graph.h"

namespace ui {

ShownFrame shownFrameAt(const engine::Model& model, const engine::Recording& recording, double t) {
    ShownFrame shown;
    shown.time = t;
    const std::size_t first = recording.first(), last = recording.size() - 1;
    // The recorded frames k and k + 1 around t (or the end frame, twice, outside them).
    std::size_t k = std::max(first, recording.frameAtOrBefore(t));
    const std::size_t next = std::min(k + 1, last);
    const double tk = recording.time(k), tNext = recording.time(next);
    const double fraction =
        next > k && tNext > tk ? std::clamp((t - tk) / (tNext - tk), 0.0, 1.0) : 0.0;

    engine::State state;
    engine::Outputs outputs;
    recording.read(k, state, outputs);
    shown.partPoses = engine::partPoses(model, state);
    shown.contacts = outputs.contacts;
    shown.couplerForces = outputs.couplerForce;
    if (fraction > 0.0) {
        recording.read(next, state, outputs);
        const std::vector<engine::Transform> after = engine::partPoses(model, state);
        for (std::size_t p = 0; p < shown.partPoses.size() && p < after.size(); ++p) {
            engine::Transform& X_WP = shown.partPoses[p];
            X_WP.p = (1.0 - fraction) * X_WP.p + fraction * after[p].p;
            X_WP.R = X_WP.R.slerp(fraction, after[p].R).normalized();
        }
        if (fraction > 0.5) {
            shown.contacts = outputs.contacts;
            shown.couplerForces = outputs.couplerForce;
        }
    }
    return shown;
}

void poseSceneGraph(SceneGraph& graph, const ShownFrame& frame) {
    const std::size_t n = std::min(graph.partTransforms.size(), frame.partPoses.size());
    for (std::size_t p = 0; p < n; ++p)
        graph.partTransforms[p]->setMatrix(toOsg(frame.partPoses[p]));
    updateSprings(graph, frame.partPoses);
    updateCouplerForces(graph, frame.couplerForces);
    updateCouplers(graph, frame.partPoses);
    updateContactArrows(graph, frame.contacts);
}

}  // namespace ui
