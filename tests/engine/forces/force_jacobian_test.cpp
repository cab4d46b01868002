// The force elements' exact Jacobians (forceElementJacobian: dual numbers) against central
// differences of the elements' forces, for every element type (laws from tables and cables
// included) and every measure an expression may read, between two bodies at a general pose and velocity; and implicit Euler's Newton
// iterations with them.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/retract.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// Two free parts A and B, joints of every kind with coordinates between them (the forces are
// evaluated at a state that meets none of them: the Jacobians are of the forces alone), and
// one force element of each type, the expressions reading every measure.
const char* kScene = R"j({"format": "motus-scene", "version": 1,
  "parts": [{"name": "ground", "ground": true,
             "markers": [{"name": "O"}, {"name": "P", "position": [0.3, 0.5, 0.2],
                                         "orientation": {"axis": [1, 0, 0], "angleDeg": 70}}]},
            {"name": "A", "mass": 2, "inertia": [0.1, 0.2, 0.3],
             "markers": [{"name": "m", "position": [0.1, -0.05, 0.2],
                          "orientation": {"axis": [1, 2, 3], "angleDeg": 40}}]},
            {"name": "B", "mass": 3, "inertia": [0.3, 0.2, 0.25],
             "markers": [{"name": "m", "position": [-0.08, 0.12, 0.03],
                          "orientation": {"axis": [-2, 1, 0.5], "angleDeg": 25}},
                         {"name": "p", "position": [0.05, 0, 0.1],
                          "orientation": {"axis": [0, 1, 1], "angleDeg": 30}}]}],
  "joints": [{"name": "hinge", "type": "revolute", "markerI": "A.m", "markerJ": "B.m"},
             {"name": "slide", "type": "prismatic", "markerI": "A.m", "markerJ": "B.m"},
             {"name": "barrel", "type": "cylindrical", "markerI": "A.m", "markerJ": "B.m"},
             {"name": "cross", "type": "universal", "markerI": "A.m", "markerJ": "B.m"},
             {"name": "flat", "type": "planar", "markerI": "A.m", "markerJ": "B.m"}],
  "variables": [{"name": "s", "expression": "DM(A.m, B.m)^2"}],
  "tables": [{"name": "bend", "interpolation": "cubic", "x": [-1, 0, 0.5, 2], "y": [-300, 0, 80, 900]},
             {"name": "drag", "interpolation": "akima", "x": [-5, -1, 0, 1, 5], "y": [-20, -6, 0, 5, 30]}],
  "forces": [
    {"name": "push", "type": "pointForce", "marker": "A.m", "frame": "marker",
     "components": ["3*DX(A.m, B.m, B.m) + DY(A.m, B.m)", "VY(A.m, B.m, B.m) - 2*DZ(A.m)",
                    "WZ(A.m, B.m, B.m) + VX(A.m) * WX(B.m, A.m)"]},
    {"name": "twist", "type": "pointTorque", "marker": "B.m",
     "components": ["AX(A.m, B.m)", "AY(A.m, B.m) * WY(A.m)", "AZ(A.m, B.m) + 0.5*WM(A.m, B.m)"]},
    {"name": "spring", "type": "springDamper", "markerI": "A.m", "markerJ": "B.m",
     "stiffness": 400, "damping": 3, "freeLength": 0.2, "preload": 5},
    {"name": "curved", "type": "springDamper", "markerI": "A.m", "markerJ": "B.m",
     "stiffness": {"table": "bend"}, "damping": {"table": "drag"}, "freeLength": 0.2},
    {"name": "rope", "type": "cable", "points": ["A.m", "ground.O", "B.m"], "stiffness": 300,
     "damping": 2, "freeLength": 0.1, "preload": 1},
    {"name": "belt", "type": "cable", "stiffness": 500, "damping": 3, "freeLength": 0.2,
     "points": ["A.m", {"marker": "ground.P", "radius": 0.05, "wrap": "cw"},
                {"marker": "B.p", "radius": 0.04, "wrap": "ccw"}, "ground.O"]},
    {"name": "sling", "type": "cable", "stiffness": 300, "damping": 1, "freeLength": 0.1,
     "points": ["A.m", {"marker": "B.p", "radius": 0.04}, "ground.O"]},
    {"name": "tendon", "type": "cable", "stiffness": 400, "damping": 2, "freeLength": 0.3,
     "points": ["ground.P", {"marker": "A.m", "radius": 0.03, "joint": "hinge"}, "B.m"]},
    {"name": "coil", "type": "rotationalSpringDamper", "joint": "hinge", "stiffness": 20,
     "damping": 0.7, "freeAngle": 0.1, "preload": 0.3},
    {"name": "mount", "type": "bushing", "markerI": "A.m", "markerJ": "B.m",
     "translationalStiffness": [100, 200, 300], "translationalDamping": [1, 2, 3],
     "rotationalStiffness": [10, 20, 30], "rotationalDamping": [0.1, 0.2, 0.3]},
    {"name": "servo", "type": "jointController", "joint": "slide", "axis": "translation",
     "target": "0.1*time + 0.5*q(hinge)", "kp": 50, "kd": 5},
    {"name": "motor", "type": "jointForce", "joint": "barrel", "axis": "rotation",
     "magnitude": "2*qd(barrel, 0) + q(barrel, 1) * qd(barrel, 1)"},
    {"name": "pin", "type": "lineForce", "markerI": "B.m", "markerJ": "ground.O",
     "magnitude": "q(cross, 0) + 3*qd(cross, 1) + sin(q(cross, 1))"},
    {"name": "pusher", "type": "lineForce", "markerI": "A.m", "markerJ": "B.m",
     "magnitude": "-50*(DM(A.m, B.m) - 0.3) - 3*VR(A.m, B.m) + VM(A.m, B.m)*VZ(A.m, B.m) - s*VR(A.m, B.m)"},
    {"name": "sheet", "type": "lineForce", "markerI": "A.m", "markerJ": "ground.O",
     "magnitude": "q(flat, 0) + q(flat, 1) * qd(flat, 2) + impact(DZ(A.m), VZ(A.m), 2, 1e3, 1.5, 10, 0.1)"}]})j";

// A general state: both bodies turned and moving.
void setState(Eigen::VectorXd& q, Eigen::VectorXd& v) {
    q.resize(14);
    v.resize(12);
    const Quat a = Quat(0.9, 0.1, -0.2, 0.3).normalized(),
               b = Quat(0.8, -0.3, 0.1, 0.2).normalized();
    q << 0.1, 0.2, 0.3, a.w(), a.x(), a.y(), a.z(), 0.5, -0.1, 0.7, b.w(), b.x(), b.y(), b.z();
    v << 0.3, -0.2, 0.5, 1.1, -0.7, 0.4, -0.4, 0.6, 0.1, -0.5, 0.8, 1.3;
}

// The element's g on bodies 0 and 1 at (q, v).
Eigen::VectorXd elementForce(const Model& model, const ForceModel& force, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& v) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, q, v, frames);
    Eigen::VectorXd g = Eigen::VectorXd::Zero(model.velocitySize());
    ForceEnergies energies;
    applyForceElement(model, force, 0.3, frames, Eigen::VectorXd(), Eigen::VectorXd(),
                      jointCoordinateOffsets(model), g, energies);
    return g;
}

TEST(ForceJacobian, EveryElementAndMeasureIsDifferentiatedExactly) {
    const auto model = test::compiled(test::parsedScene(kScene));
    ASSERT_TRUE(model);
    ASSERT_EQ(model->bodyCount(), 2);
    Eigen::VectorXd q, v;
    setState(q, v);
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model, q, v, frames);
    const std::vector<int> offsets = jointCoordinateOffsets(*model);
    for (const ForceModel& force : model->forces) {
        Eigen::MatrixXd K, D;
        forceElementJacobian(*model, force, 0.3, frames, Eigen::VectorXd(), Eigen::VectorXd(),
                             offsets, {0, 1}, K, D);
        // Central differences, step 1e-6: truncation ~1e-12 of the force's scale, round-off
        // ~1e-10; the exact Jacobian agrees to what they leave.
        const double h = 1e-6;
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 6; ++c) {
                Eigen::VectorXd qPlus = q, qMinus = q, vPlus = v, vMinus = v;
                if (c < 3) {
                    layout::position(qPlus, b)(c) += h;
                    layout::position(qMinus, b)(c) -= h;
                } else {
                    rotateBody(qPlus, b, h * Vec3::Unit(c - 3));
                    rotateBody(qMinus, b, -h * Vec3::Unit(c - 3));
                }
                layout::twist(vPlus, b)(c) += h;
                layout::twist(vMinus, b)(c) -= h;
                const Eigen::VectorXd Kc = (elementForce(*model, force, qPlus, v) -
                                            elementForce(*model, force, qMinus, v)) /
                                           (2 * h);
                const Eigen::VectorXd Dc = (elementForce(*model, force, q, vPlus) -
                                            elementForce(*model, force, q, vMinus)) /
                                           (2 * h);
                const double scale =
                    1.0 + std::max(K.cwiseAbs().maxCoeff(), D.cwiseAbs().maxCoeff());
                for (int r = 0; r < 12; ++r) {
                    EXPECT_NEAR(K(r, 6 * b + c), Kc(r), 1e-7 * scale)
                        << force.name << ": ∂g(" << r << ")/∂q of body " << b << ", " << c;
                    EXPECT_NEAR(D(r, 6 * b + c), Dc(r), 1e-7 * scale)
                        << force.name << ": ∂g(" << r << ")/∂v of body " << b << ", " << c;
                }
            }
        // and the element does depend on the state (the comparison is not of zeros)
        EXPECT_GT(K.norm() + D.norm(), 1e-3) << force.name;
    }
}

}  // namespace
}  // namespace engine
