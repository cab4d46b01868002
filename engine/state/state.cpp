#include "engine/state/state.h"

#include "engine/model/layout.h"
#include "engine/model/model.h"

namespace engine {

State initialState(const Model& model) {
    State s;
    s.q.resize(model.positionSize());
    s.v.resize(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        setBodyPose(s.q, b, body.X_WB0);
        layout::linear(s.v, b) = body.v_WBcm0_W;
        layout::angular(s.v, b) = body.w_WB0_B;
    }
    int coordinates = 0;
    for (const JointModel& joint : model.joints)
        coordinates += static_cast<int>(joint.coordinates.size());
    s.jointCoordinates = Eigen::VectorXd::Zero(coordinates);
    s.lagged = Eigen::VectorXd::Zero(model.laggedCount);
    for (const SwitchModel& k : model.switches) s.switches.push_back(k.initial);
    if (model.contact.enabled && model.contact.settings.sleepTime > 0.0)
        s.rest.assign(static_cast<std::size_t>(model.bodyCount()), 0.0);
    return s;
}

}  // namespace engine
