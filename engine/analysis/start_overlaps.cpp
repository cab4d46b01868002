#include "engine/analysis/start_overlaps.h"

#include <algorithm>
#include <map>
#include <utility>

#include "engine/contact/collision_world.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

StartOverlaps findStartOverlaps(const Model& model, const State& state, double threshold) {
    StartOverlaps found;
    if (!model.contact.enabled) return found;
    const ContactSettings& settings = model.contact.settings;
    found.threshold =
        threshold >= 0.0 ? threshold : settings.slop + settings.pushSpeed * model.settings.stepSize;
    if (state.q.size() < static_cast<Eigen::Index>(7 * model.bodies.size())) return found;
    contact::CollisionWorld world(model.contact);
    for (std::size_t p = 0; p < model.parts.size(); ++p) {
        const int b = model.parts[p].body;
        if (b == kGround) continue;  // (placed by the world itself)
        world.setPartPose(
            p, partPose(model, p,
                        {bodyOrientation(state.q, b).normalized(), bodyPosition(state.q, b)}));
    }
    // Each pair's deepest point (a pair of boxes one inside the other has up to four).
    std::map<std::pair<std::size_t, std::size_t>, double> deepest;
    for (const contact::ContactPoint& point : world.query(settings.margin, {}).points) {
        if (!(point.depth > found.threshold)) continue;
        double& depth = deepest[{point.partA, point.partB}];
        depth = std::max(depth, point.depth);
    }
    found.pairs = deepest.size();
    for (const auto& [pair, depth] : deepest) {
        found.each.emplace_back(static_cast<int>(pair.first), static_cast<int>(pair.second));
        if (depth <= found.depth) continue;  // (ties: the first pair by index)
        found.depth = depth;
        found.partA = static_cast<int>(pair.first);
        found.partB = static_cast<int>(pair.second);
    }
    return found;
}

}  // namespace engine
