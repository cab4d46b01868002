#pragma once
// Assembly of all constraint rows of a model at one instant:
//   Φ(q, t) = 0           position level (joints, position drivers)
//   Φq v = ν              velocity level (ν = −Φt: driver speeds; 0 for joints)
//   Φq v̇ = γ              acceleration level
// Rows: the joints' rows in joint order (primitives in the order of jointPrimitives()), one row
// per coupler, then one row per driver. Columns: 6 per body (v_W, ω' in body axes).

#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "engine/kinematics/kinematic_vector.h"
#include "engine/model/scene_spec.h"

namespace engine {

struct Model;

using SparseRowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct ConstraintEvaluation {
    Eigen::VectorXd Phi;    // residuals (0 for velocity- and acceleration-level driver rows)
    Eigen::VectorXd nu;     // velocity right-hand side
    Eigen::VectorXd gamma;  // acceleration right-hand side
    SparseRowMatrix Phi_q;  // nc × 6nb
    std::vector<MotionLevel> level;  // per row (joint rows are Position)

    // Layout of Φq, fixed per model: the bodies of each row (kGround for none) and where the
    // row's 6 entries for each start in Φq's value array (−1 for the ground).
    std::uint64_t patternSerial = 0;  // Model::serial the layout belongs to
    std::vector<int> bodyI, bodyJ, slotI, slotJ;
    // A coupler's row touches the bodies of all its joints: per coupler, its distinct bodies
    // (ascending, no ground) couplerBodies[couplerBegin[k] …] and where each one's 6 entries
    // start in the value array (couplerSlots, same indices).
    std::vector<int> couplerBegin, couplerBodies, couplerSlots;

    // The couplers' coordinates unwound (per term of each coupler in order; NaN: not yet
    // known): each evaluation counts an angle's whole turns from the last value it saw, so that
    // a gear's relation holds over any number of turns. seedCouplerCoordinates() sets them from
    // a state's joint coordinates.
    std::vector<double> couplerCoordinates;
};

// Sets the couplers' unwound coordinates of `out` from State::jointCoordinates (a state whose
// coordinates are known: a run's, a recorded frame's).
void seedCouplerCoordinates(const Model& model, const Eigen::VectorXd& jointCoordinates,
                            ConstraintEvaluation& out);

// γ of the joint rows is computed only `withGamma` (left 0 otherwise: projections need Φ and Φq
// alone); the motions' rows always have theirs.
void evaluateConstraints(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         ConstraintEvaluation& out, bool withGamma = true);

// Only Φ and ν (no Jacobian, no γ): the cheap evaluation for Newton and projection loops.
// `out` must already hold a full evaluation of the same model (row levels).
void evaluateConstraintResiduals(const Model& model, double t, const std::vector<BodyFrame>& frames,
                                 ConstraintEvaluation& out);

// The soft joints' rows (Model::softConstraints, in order): Φ and Φq (the same equations as
// exact joints, no γ), in an evaluation of their own.
void evaluateSoftConstraints(const Model& model, const std::vector<BodyFrame>& frames,
                             ConstraintEvaluation& out);

// One joint's exact rows alone (a cut joint of the recursive formulation, which closes a loop
// of its joint tree: engine/dynamics/joint_space.h): Φ, and with `jacobian` the entries Φq holds
// for the joint's rows — per row 6 for marker I's body then 6 for marker J's (row-major, rows ×
// 12; a side on the ground written but meaningless) — and γ when `withGamma`. Not for a moving
// frame's joint. Returns the number of rows (joint.rows).
int evaluateJointRows(const Model& model, int joint, const std::vector<BodyFrame>& frames,
                      bool jacobian, bool withGamma, Eigen::Ref<Eigen::VectorXd> Phi,
                      Eigen::Ref<Eigen::VectorXd> gamma, double* blocks);

// A gear's or rack's rolling row (CouplerModel::rolling) on its two gears' bodies: the entries
// per body (coupler.gearBodies; 6 each, velocity then angular velocity in the body's frame, as
// evaluateJointRows writes them) of t·(v_I(P) − v_J(P)) / scale — the tooth force at the pitch
// point P per unit multiplier. False where the pitch point is not defined (axles that met, a
// rack along the pinion's axis). (The recursive formulation steps the coordinates' relation
// and reports the bearings' reactions with this force: engine/dynamics/joint_space.h.)
bool rollingCouplerEntries(const Model& model, int coupler, const std::vector<BodyFrame>& frames,
                           double entries[12]);

// The largest gap of the position-level rows, as a user measures it: a joint's coincident
// point pair by its Euclidean distance (the norm of its three rows) [m], every other row by its
// magnitude [m or rad]: the "constraint error" of outputs. The projection stops when it is within
// the projection tolerance.
// `row`, when given, receives the row where it is found (a coincident pair's first row).
double maxPositionResidual(const Model& model, const ConstraintEvaluation& evaluation,
                           int* row = nullptr);

}  // namespace engine
