#include "engine/kinematics/part_motion.h"

#include "engine/kinematics/kinematics.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

bool isGroundPart(const Model& model, std::size_t p) {
    return (model.unfolded ? model.unfolded->bodyOfPart[p] : model.bodyOfPart[p]) == kGround;
}

PartMotion partMotion(const Model& model, std::size_t p, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& v) {
    return partMotion(model.parts[p], q, v);
}

PartMotion partMotion(const PartModel& part, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
    PartMotion out;
    if (part.body == kGround) {  // X_BP and com_B: in the world
        out.com = part.com_B;
        out.orientation = part.X_BP.R;
        return out;
    }
    const Quat R_WB = bodyOrientation(q, part.body);
    const Vec3 arm = R_WB * part.com_B;
    out.angularVelocity = R_WB * Vec3(layout::angular(v, part.body));
    out.com = bodyPosition(q, part.body) + arm;
    out.velocity = Vec3(layout::linear(v, part.body)) + out.angularVelocity.cross(arm);
    out.orientation = (R_WB * part.X_BP.R).normalized();
    return out;
}

void partAcceleration(const PartModel& part, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                      const Eigen::VectorXd& vdot, Vec3& acceleration, Vec3& angularAcceleration) {
    acceleration = angularAcceleration = Vec3::Zero();
    if (part.body == kGround) return;
    const Quat R_WB = bodyOrientation(q, part.body);
    const Vec3 d = R_WB * part.com_B, w = R_WB * Vec3(layout::angular(v, part.body));
    // d/dt (R ω') = R ω̇' + R (ω' × ω') = R ω̇'.
    angularAcceleration = R_WB * Vec3(layout::angular(vdot, part.body));
    acceleration =
        Vec3(layout::linear(vdot, part.body)) + angularAcceleration.cross(d) + w.cross(w.cross(d));
}

SeenInFrame seenInFrame(const Transform& X_PB, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        int frameBody, const PartMotion& part) {
    const BodyFrame f = bodyFrame(q, v, frameBody);
    const Mat3 R_WF = f.R * X_PB.rotationMatrix().transpose();
    const Vec3 origin = f.r - R_WF * X_PB.p;
    const Mat3 R_FW = R_WF.transpose();
    return {R_FW * (part.com - origin), R_FW * (part.velocity - f.v - f.w.cross(part.com - f.r)),
            R_FW * (part.angularVelocity - f.w)};
}

}  // namespace engine
