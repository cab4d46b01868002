#pragma once
// A part's motion as its body moves it (PartModel, Model::parts): welded parts share one body
// (engine/model/welds.h), whose frame sits at the group's centre of mass, so each part's centre
// of mass, its velocity and acceleration are the body's carried to the part's own centre.
// What recordings, CSV and moving-frame channels report per part.

#include <cstddef>

#include <Eigen/Core>

#include "engine/kinematics/frame_motion.h"
#include "engine/math/spatial.h"

namespace engine {

struct Model;
struct PartModel;

// Whether part p is one of the scene's ground parts (Part::ground), which no channel reports;
// a part welded to the ground is not (it reports where it stands).
bool isGroundPart(const Model& model, std::size_t p);

// World axes: the part's centre of mass, its velocity, its angular velocity and the part
// frame's orientation. A part on the ground (a ground part, or one welded to one) stands still.
struct PartMotion {
    Vec3 com = Vec3::Zero(), velocity = Vec3::Zero(), angularVelocity = Vec3::Zero();
    Quat orientation = Quat::Identity();
};
PartMotion partMotion(const PartModel& part, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
PartMotion partMotion(const Model& model, std::size_t part, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& v);

// The acceleration of the part's centre of mass and its angular acceleration (world axes) from
// its body's accelerations `vdot` (the layout's terms: v̇_W, ω̇' in body axes):
// a = a_B + α × d + ω × (ω × d), d the centre's offset from the body's.
void partAcceleration(const PartModel& part, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                      const Eigen::VectorXd& vdot, Vec3& acceleration, Vec3& angularAcceleration);

// The part seen in a moving frame (as seenInFrame: the frame's body `frameBody`, X_PB its body
// frame in the frame part's).
SeenInFrame seenInFrame(const Transform& X_PB, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        int frameBody, const PartMotion& part);

}  // namespace engine
