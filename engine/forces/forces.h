#pragma once
// Applied forces as generalised forces g (6 per body: force in world axes at the COM, then
// torque in body axes), plus the energy terms of the force elements.
//
// g includes gravity and the gyroscopic term −ω' × J'ω' of the Euler equations, so the
// dynamics read  M v̇ + Φqᵀ λ = g.

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/kinematics/kinematics.h"

namespace engine {

struct Model;

struct ForceEnergies {
    double elastic = 0.0;        // potential energy stored in springs and bushings [J]
    double dampingPower = 0.0;   // power dissipated by dampers (≥ 0) [W]
    double actuatorPower = 0.0;  // power put in by joint controllers [W]
    // Joint coordinates: Σ Q q̈ over the rates motions prescribe (Q the effort a motion exerts,
    // counted in actuatorPower as Q q̇): what the motions' power grows by per second at their
    // efforts, so that a step takes their work at its mean rate, Q (q̇ₙ + q̇ₙ₊₁)/2 h [W/s].
    double motionPowerRate = 0.0;
};

// `jointCoordinates` are the last known coordinates (State::jointCoordinates), used to unwind
// spring angles past ±π; `lagged` what expressions read as of the previous step
// (State::lagged: reactions, contact forces). Returns the index of the first force element
// whose force is not finite (NaN or infinity), or −1. `held` (per body, or null): bodies a
// stepper holds still through its step (sleeping parts): their gravity and gyroscopic terms are
// left out (zero in g); force elements still act on them as on any body.
int computeAppliedForces(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                         const Eigen::VectorXd& lagged, Eigen::VectorXd& g,
                         ForceEnergies* energies = nullptr,
                         const std::vector<char>* held = nullptr);

struct ForceModel;

// One force element's contribution, added to g (and its energy terms to `energies`).
// `offsets` = jointCoordinateOffsets(model).
// `stateValues`: what its expressions read of the state (engine/kinematics/state_measures.h)
// at these frames; evaluated here when null and the element reads any.
void applyForceElement(const Model& model, const ForceModel& force, double t,
                       const std::vector<BodyFrame>& frames,
                       const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                       const std::vector<int>& offsets, Eigen::VectorXd& g, ForceEnergies& energies,
                       const std::vector<double>* stateValues = nullptr);

// One element's generalised force differentiated exactly (forward-mode dual numbers,
// engine/math/dual.h) with respect to the coordinates of `bodies` (none the ground): column
// 6k + c of K is the derivative along body bodies[k]'s coordinate c in the integrators' terms
// (c < 3: its position, world axes; c ≥ 3: a turn about its body axis c − 3, q ⊕ δ), of D
// along its velocity (c < 3: linear, world axes; c ≥ 3: ω' in body axes); row 6i + r is the
// element's g on bodies[i], entry r. `bodies` must hold every body the element acts on or
// reads (forceElementBodies and ForceModel::stateBodies). What it reads as of the previous step
// (`lagged`) is a constant of the step: no derivative.
void forceElementJacobian(const Model& model, const ForceModel& force, double t,
                          const std::vector<BodyFrame>& frames,
                          const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                          const std::vector<int>& offsets, const std::vector<int>& bodies,
                          Eigen::MatrixXd& K, Eigen::MatrixXd& D);

// A joint controller's effort at this instant: kp (target − q) + kd (target' − q̇), limited to
// ±maxEffort; an angle q is unwound from `lastValue`. Its coordinate's rate goes to `rate`.
double controllerEffort(const Model& model, const ForceModel& force, double t,
                        const std::vector<BodyFrame>& frames, double lastValue,
                        double* rate = nullptr, const std::vector<double>* stateValues = nullptr);

// An effort on the coordinate a joint element acts on (its `joint` and `coordinate`): a torque
// about (force along) marker J's z axis on marker I's part, the opposite on J's, added to g.
void applyJointEffort(const Model& model, const ForceModel& force,
                      const std::vector<BodyFrame>& frames, double effort, Eigen::VectorXd& g);

// A line or joint force's magnitude at this instant (its expression with the state's values),
// the rest of its state from `frames`, `jointCoordinates` and `lagged`.
double forceMagnitude(const Model& model, const ForceModel& force, double t,
                      const std::vector<BodyFrame>& frames, const Eigen::VectorXd& jointCoordinates,
                      const Eigen::VectorXd& lagged);

// Why a force element's expressions make it not finite at t, naming the expression, its value
// and the time ("its expression 'sqrt(0.5 - time)' (z component) is nan at t = 0.6 s"; for a
// controller its target, or the target's rate, which looks 2 ms ahead: then the time the target
// itself stops being finite); empty when its expressions are finite there.
// Expressions that read the state are left out here (their value needs one): see the next.
std::string nonFiniteExpression(const ForceModel& force, double t);
// The same with the state: an expression that reads it is named with the measures' and
// variables' values ("its expression '1/DM(a.m, b.m)' (magnitude) is inf at t = 0.3 s, where
// DM(a.m, b.m) = 0").
std::string nonFiniteExpression(const Model& model, const ForceModel& force, double t,
                                const std::vector<BodyFrame>& frames,
                                const Eigen::VectorXd& jointCoordinates,
                                const Eigen::VectorXd& lagged);

// A spring-damper's length [m] and its rate [m/s], and its tension [N] (positive pulling its
// markers together); a rotational spring-damper's angle [rad, unwound from `jointCoordinates`],
// its rate [rad/s] and its torque [N·m] (positive resisting a positive twist): elastic, damping
// and preload together, 0 while it is switched off. What the recording keeps of them.
// A cable at the state of `frames`, per via point: whether it is cut there (a turning pulley or
// one with friction it touches), the tensions of the spans before and after it [N], its wrap
// [rad], and a pulley with friction's slip [m] (found where the cable slips over it, the stored
// one where it grips): what the run reads to switch a pulley's grip (engine/analysis).
struct CableSlipReading {
    bool cut = false;
    double before = 0.0, after = 0.0, wrap = 0.0, slip = 0.0;
};
std::vector<CableSlipReading> cableSlips(const Model& model, const ForceModel& force,
                                         const std::vector<BodyFrame>& frames,
                                         const Eigen::VectorXd& jointCoordinates,
                                         const std::vector<int>& offsets);

// An inextensible cable's spans at the frames, each a row of the velocity-level contact
// problem: its length, the most it may have (its share of the free length), and its rate's
// Jacobian over the velocities of the (at most two) moving parts it pulls: l̇ = Σ J_s · twist
// of body[s] (layout::twist; kGround: no part). `moreBodies`: it pulls more than two (the
// scene's check refuses that).
struct CableSpanRow {
    double length = 0.0, limit = 0.0;
    int body[2] = {-1, -1};
    Eigen::Matrix<double, 6, 1> J[2] = {Eigen::Matrix<double, 6, 1>::Zero(),
                                        Eigen::Matrix<double, 6, 1>::Zero()};
    bool moreBodies = false;
};
std::vector<CableSpanRow> cableSpanRows(const Model& model, const ForceModel& force,
                                        const std::vector<BodyFrame>& frames,
                                        const Eigen::VectorXd& jointCoordinates,
                                        const std::vector<int>& offsets);

struct SpringReading {
    double length = 0.0, rate = 0.0, force = 0.0;
};
SpringReading springReading(const Model& model, const ForceModel& force,
                            const std::vector<BodyFrame>& frames,
                            const Eigen::VectorXd& jointCoordinates,
                            const std::vector<int>& offsets);

// The (at most two) bodies a force element acts on; kGround where there is none.
std::array<int, 2> forceElementBodies(const Model& model, const ForceModel& force);

}  // namespace engine
