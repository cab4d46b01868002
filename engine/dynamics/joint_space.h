#pragma once
// Dynamics in joint coordinates (seed 000, "Transformation hierarchies" in THEORY.md): a tree of
// parts hanging from the ground by joints, its state the joints' coordinates q and rates q̇
// instead of every part's pose and velocity. The mass matrix M(q) by the composite-rigid-body
// algorithm and the bias forces h(q, q̇) (gravity, the velocity products, every force element)
// by the recursive Newton–Euler algorithm, both O(n) passes over the tree in world-frame spatial
// vectors (Featherstone's (ω, v_O) at the world origin, so no transform per link); then
// M q̈ = −h, or q̈ by the articulated-body algorithm. Joints hold by construction: there are no
// constraint rows.
//
// A link's joint is revolute, prismatic, fixed (no coordinate), cylindrical, universal
// (the coordinates jointCoordinate measures), planar (x, y along marker J's axes, then the turn
// about its z), spherical (a unit quaternion, 4 coordinates, and the turn rate in marker I's
// axes, 3 rates) or a part's own six degrees of freedom from the ground (a free part: its
// origin and unit quaternion in the world, 7 coordinates; the velocity of its origin in the
// world's axes, as MuJoCo's free joint has it, so that its momentum is what semi-implicit
// Euler keeps, and its turn rate in its own axes, 6 rates). So q and q̇ differ in size where a
// quaternion is
// (jointCoordinateRates, integrateJointCoordinates). Motions prescribe one-axis coordinates
// (and any coordinate but a ball's). A part on a moving frame (seed 004) is a root whose six
// rates the frame's expressions prescribe (a free part's coordinates, given at every instant:
// its joint the frame's hidden one, its reaction what moves the frame). A closed mechanism is a spanning tree plus cut joints of
// any type, whose rows Φc(q) = 0 are held with multipliers (loop closure:
// M q̈ + h + Jcᵀ λ = 0, Jc q̈ = γc, Jc = ∂Φc/∂q̇ in rates). buildJointTree() says why a model
// is not one it can take. The integrators step in these coordinates when the scene's
// formulation is recursive (engine/integrators/integrator.h, chooseFormulation).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/dynamics/workspace.h"
#include "engine/math/spatial.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

// What a link's joint is, in joint coordinates (see above).
enum class LinkKind : unsigned char {
    Weld,
    Revolute,
    Prismatic,
    Cylindrical,
    Universal,
    Spherical,
    Planar,
    Free,
};

struct JointTree {
    struct Link {
        int joint = -1;  // index into Model::joints; −1: a free part (six DOF from the ground)
        // A moving frame's part (kind Free, its joint the frame's hidden one): its coordinates
        // and rates are the frame's prescribed pose and velocity (prescribeMotions).
        bool frame = false;
        int body = 0;     // the body the joint carries (the link's own)
        int parent = -1;  // the parent link's index, −1: the ground
        int parentBody = kGround;
        LinkKind kind = LinkKind::Revolute;
        bool welded = false;      // a fixed joint: no coordinate
        bool childHoldsI = true;  // the link's body holds marker I (q moves it), else marker J
        Transform X_PF;           // the joint's marker on the parent, in its body frame (world)
        Transform X_CM;           // the link's own marker in its body frame
        Transform X_GC;           // the link's body frame in its own marker's (X_CM's inverse)
        // A prismatic or fixed joint's turn of marker I from marker J (exact: one of the four
        // its rows allow).
        Quat R_JI0 = Quat::Identity();
        int slot = -1;  // its joint's first entry of State::jointCoordinates (−1: a free part)
        int iq = 0, nq = 0;  // its coordinates: q[iq, iq + nq)
        int iv = 0, nv = 0;  // its rates: q̇[iv, iv + nv)
    };
    std::vector<Link> links;                    // parents before children
    int nq = 0, nv = 0;                         // coordinates and rates in all
    std::vector<int> rateLink, coordinateLink;  // per rate, per coordinate: its link
    // Per rate: the motion (Model::drivers) that prescribes it, or −1.
    std::vector<int> rateDriver;
    // Per rate: whether its column of the motion subspace moves with the link's body (else with
    // the parent's): what its rate of change is.
    std::vector<unsigned char> rateOnChild;
    // The joints that close loops (indices into Model::joints, ascending): their rows are held
    // as constraints on the tree's coordinates, Φc(q) = 0 (loop closure), with multipliers.
    std::vector<int> cuts;
    // The couplers (Model::couplers, all of them, in order): each one row over the tree's
    // coordinates, Σ cₜ q[coordinate ₜ] + offset = 0 (its rates the coordinates' own), held with
    // a multiplier after the cut joints' rows.
    struct CouplerRow {
        int coupler = 0;
        std::vector<int> coordinates, rates;
        std::vector<double> coefficients;
    };
    std::vector<CouplerRow> couplerRows;
    int cutRows = 0;  // the cut joints' rows and the couplers'

    std::vector<int> linkOfBody;  // per body, the link that carries it (−1: none)
    // A multi-axis link with a motion: q̈ by the mass matrix rather than the articulated-body
    // passes (as with loops).
    bool hybridMultiAxis = false;
    int size() const { return static_cast<int>(links.size()); }
    bool closed() const { return !cuts.empty() || !couplerRows.empty(); }
    int freeParts() const;
    int movingFrames() const;
    // Whether rate e is prescribed at this instant: by a motion switched on, or by a moving
    // frame.
    bool prescribed(const Model& model, int e) const;
};

// The tree of `model`, with `state` giving what its joints hold fixed (a prismatic joint's
// relative turn): a spanning tree of the joints that can be links, each part no joint reaches
// from the ground a free part (the root of its own subtree), every other joint a cut joint
// closing a loop, each part a moving frame carries a root of its own. Nullopt and the reason
// when the model is not one joint coordinates can take (a motion on a cut joint or on a ball
// joint, a part of no mass free).
std::optional<JointTree> buildJointTree(const Model& model, const State& state, std::string& why);

// What a tree is built for. Whole: the recursive formulation's, every part on it and nothing it
// cannot step. Control: a model-based controller's model of the mechanism (joint_control.h):
// the parts reached from the ground through joints, with what acts on them from outside the
// rigid-body model — stops, contact, free parts elsewhere — left out.
enum class TreeScope { Whole, Control };
std::optional<JointTree> buildJointTree(const Model& model, const Eigen::VectorXd& bodyQ,
                                        const Eigen::VectorXd& bodyV, std::string& why,
                                        TreeScope scope);

// Where the motions put their coordinates at time t: a position-level motion's q (an angle
// unwound to the one nearest q's) and q̇, a velocity-level motion's q̇, into q and q̇ (a motion
// switched off prescribes nothing); a moving frame's part's pose and velocity.
void prescribeMotions(const Model& model, const JointTree& tree, double t,
                      Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> qd);

// The rates that carry the coordinates q from where they are to where the motions and moving
// frames put them at time t1 in a time h, q₁ = q ⊕ h q̇ (a position-level motion's (q(t₁) − q)/h,
// a moving frame's part's mean velocity and turn), into qd for those rates; a velocity-level
// motion's rate at t1. What a velocity-level step moves them at, so that what touches them
// sees them go where they will be (the other rates are left as they are).
void prescribedMeanRates(const Model& model, const JointTree& tree, double t1,
                         const Eigen::VectorXd& q, double h, Eigen::Ref<Eigen::VectorXd> qd);

// q̇ for rates v at coordinates q: the rates themselves but for a ball's or a free part's
// quaternion Q (½ Q ⊗ (0, ω)).
void jointCoordinateRates(const JointTree& tree, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          Eigen::Ref<Eigen::VectorXd> qdot);

// q ⊕ h v: the coordinates moved at rates v for a time h (a quaternion turned by exp(h ω / 2)
// and kept unit).
void integrateJointCoordinates(const JointTree& tree, Eigen::Ref<Eigen::VectorXd> q,
                               const Eigen::VectorXd& v, double h);

// The joint coordinates and rates of `state` (its angles as the joints measure them, unwound
// past ±π from state.jointCoordinates): O(n), from the bodies' poses and velocities.
void jointSpaceState(const Model& model, const JointTree& tree, const State& state,
                     Eigen::VectorXd& q, Eigen::VectorXd& qd);

// The bodies' poses and velocities for joint coordinates q, q̇ into state.q, state.v, and q
// into state.jointCoordinates (sized for the model when it is not).
void bodyStateFromJoints(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, State& state);

// M(q) (composite-rigid-body) and h(q, q̇) (recursive Newton–Euler with q̈ = 0): the generalised
// forces that hold the tree with q̈ = 0 against gravity, the velocity products and the model's
// force elements (evaluated at the bodies' state, `lagged` and `jointCoordinates` as a step
// has them). `ws` supplies the frames and the applied-force buffer.
Status jointSpaceDynamics(const Model& model, const JointTree& tree, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const State& memory,
                          Workspace& ws, Eigen::MatrixXd& M, Eigen::VectorXd& h);

// The same at the bodies' poses and velocities bodyQ, bodyV (as State::q, State::v; the joint
// coordinates, unwound from `jointCoordinates`, and rates into q, q̇), with the applied forces
// already in ws.g (evaluated there), and G(q): gravity's share of h, the efforts that hold the
// tree still where it is against gravity. What a model-based controller reads.
void jointSpaceDynamicsAtBodies(const Model& model, const JointTree& tree,
                                const Eigen::VectorXd& bodyQ, const Eigen::VectorXd& bodyV,
                                const Eigen::VectorXd& jointCoordinates, const Workspace& ws,
                                Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                                Eigen::VectorXd& h, Eigen::VectorXd& G);

// q̈ by the articulated-body algorithm: three O(n) passes, no mass matrix (Featherstone, ch. 7);
// what jointSpaceAccelerations gives, in time linear in the links whatever the tree's depth. A
// coordinate a motion prescribes takes the motion's q̈ (hybrid dynamics: its link is handed to
// its parent whole), and the generalised force the motion exerts for it does work, added to
// ws.forceEnergies.actuatorPower (what the run counts as put in by drivers).
Status articulatedAccelerations(const Model& model, const JointTree& tree, double t,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                const State& memory, Workspace& ws, Eigen::VectorXd& qdd);

// The same at the bodies' state `state` (time, poses, velocities, the memory forces read), its
// joint coordinates and rates into q, q̇ (jointSpaceState): the recursions start from the
// bodies' poses as they are rather than composing them again from q (a step's start).
// On a closed tree, the cut rows' and couplers' multipliers into `cutMultipliers` when given.
Status articulatedAccelerationsAt(const Model& model, const JointTree& tree, const State& state,
                                  Eigen::VectorXd& q, Eigen::VectorXd& qd, Workspace& ws,
                                  Eigen::VectorXd& qdd, Eigen::VectorXd* cutMultipliers = nullptr);

// What the joints transmit at the bodies' state `state`: q̈ by the articulated-body algorithm
// there, then the recursive Newton–Euler pass with it. Per link, the spatial force its joint
// exerts on the link's body, about the world origin (moment, force): the joint's reaction and,
// along its axes, the efforts of the motions that drive it; per rate, the generalised force
// along it (s·F: 0 for a rate nothing drives) into `alongAxis`. A run in joint
// coordinates reports reactions and motion efforts from these, with no constraint solve
// (engine/analysis/outputs). A closed tree's q̈ is the loop-closed one, and what its cut joints'
// rows exert on the links' bodies is in what the joints transmit; their multipliers (one per
// cut row, in the order of `cuts`) into `cutMultipliers` when given.
// (The links' rates q̇ go to `qd`.)
Status jointSpaceTransmitted(const Model& model, const JointTree& tree, const State& state,
                             Workspace& ws, Eigen::VectorXd& qd, Eigen::VectorXd& qdd,
                             std::vector<Eigen::Matrix<double, 6, 1>>& transmitted,
                             Eigen::VectorXd& alongAxis, Eigen::VectorXd* cutMultipliers = nullptr);

// A closed tree's loops closed again (after a step, or at an interpolated state): the free
// coordinates (neither welded nor prescribed) moved by Newton steps in the mass metric until
// the cut joints' rows are within `tolerance` (the scene's projection tolerance when 0), then
// q̇ made to meet their velocity rows, each the least change in the mass metric. Nothing for an
// open tree. Fails, naming the cut joints, where the loops cannot be closed.
// With `bestPivot` (a run's memory of each cut row's best pivot: Workspace::loopBestPivot),
// the velocity rows about to depend on the others next to a singular position are left as they
// are.
Status projectLoopClosure(const Model& model, const JointTree& tree, double t, Eigen::VectorXd& q,
                          Eigen::VectorXd& qd, double tolerance = 0.0, int* iterations = nullptr,
                          std::vector<double>* bestPivot = nullptr);

// Symplectic Euler of a closed tree in joint coordinates, its loops held as the maximal
// coordinates' step holds its joints (SHAKE–RATTLE, symplectic_euler.cpp):
//   v* = q̇ₙ − h M⁻¹ h(qₙ, q̇ₙ),
//   v⁺ = v* − M⁻¹ Jcᵀ μ,  qₙ₊₁ = qₙ ⊕ h v⁺,  μ such that the cut rows hold there, Φc(qₙ₊₁) = 0
//        (quasi-Newton iterations on Φc alone with the step's start factored, from a first
//        estimate that adds what the last steps' estimates missed, extrapolated: past a run's
//        first steps the first evaluation closes the loops),
//   q̇ₙ₊₁ = v⁺ made to meet the cut rows' velocity rows at qₙ₊₁ (the least change in the mass
//        metric).
// The factorisation at qₙ₊₁ is the next step's start: a step that begins where the last one
// ended (the state as it wrote it, or a recorded copy of it: the links' coordinates are taken
// from State::jointCoordinates where they are held there exactly) factors once. The step's
// outcome depends on the state alone (with what it carries in State::solverMemory), so a run
// resumed from any of its frames goes on bit for bit. A motion's coordinate moves at its mean
// rate over the step, the free rates feel its whole change of rate (to the motion's rate at the
// step's end), and its work is its impulse over the step times that mean rate, with what it
// gives while the rates are projected.
class LoopStepper {
public:
    // Whether it steps this tree (closed, no moving frame on it).
    static bool takes(const Model& model, const JointTree& tree);
    LoopStepper();
    ~LoopStepper();
    LoopStepper(LoopStepper&&) noexcept;
    LoopStepper& operator=(LoopStepper&&) noexcept;
    // One step of size h from `state` (a closed tree's). `iterations` counts the impulse
    // iterations taken.
    Status step(const Model& model, const JointTree& tree, State& state, Workspace& ws, double h,
                int& iterations);
    // Forgets the steps before (the state was set from elsewhere).
    void reset();
    // What a step carries into the next beyond the state: the part of the impulses that the
    // first estimate missed (the next step's estimate adds it, extrapolated, so that its first
    // evaluation closes the loops). It goes with the state (State::solverMemory, after the
    // constraint solvers' memory) so that a run resumed from a recorded frame goes on bit for
    // bit: memorySize(model) doubles (0 where the scene does not step closed trees so).
    static int memorySize(const Model& model);
    void saveMemory(double* memory, int size) const;
    void restoreMemory(const double* memory, int size);
    static constexpr int kMissed = 5;  // the steps' misses kept
    // An extrapolated estimate whose gap is above this many tolerances is dropped for the
    // step's own.
    static constexpr double kCarriedGapLimit = 1e4;

private:
    struct Memory;
    std::unique_ptr<Memory> m_;
};

// The start and end of a symplectic step of an open tree in joint coordinates (no cut joint,
// no multi-axis link a motion drives in part, every link's coordinates held exactly in
// State::jointCoordinates: no ball, no free part). A step that begins where the last one ended
// (the state as it wrote it: the same time, poses and joint coordinates to the bit) takes its
// coordinates, poses and motion subspaces as the last step left them rather than finding them
// again from the bodies' poses (an arc tangent and two pose compositions a link); a state from
// elsewhere has them found from its bodies, its coordinates then taken from
// State::jointCoordinates (where they hold them to 1e-12) and the kinematics composed from
// those, as the step that wrote it did, so that a run resumed from any of its frames goes on
// bit for bit. The rates are always the bodies' (a state's velocities may be set alone).
class TreeStepper {
public:
    // Whether it starts and ends this tree's steps.
    static bool takes(const Model& model, const JointTree& tree);
    TreeStepper();
    ~TreeStepper();
    TreeStepper(TreeStepper&&) noexcept;
    TreeStepper& operator=(TreeStepper&&) noexcept;
    // The step's start at `state`: q, q̇ and q̈ by the articulated-body algorithm.
    Status start(const Model& model, const JointTree& tree, const State& state, Workspace& ws,
                 Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd& qdd);
    // The step's end: the bodies' state (and joint coordinates) from q, q̇ into `state` at its
    // time (already the step's end), kept as the next step's start.
    void finish(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                const Eigen::VectorXd& qd, State& state);
    // Forgets the steps before.
    void reset();

private:
    struct Memory;
    std::unique_ptr<Memory> m_;
};

// Whether a closed tree's loops are at a singular position at `state` (assembled): a direction
// in which the cut rows' Jacobian lets the free coordinates move leads off the mechanism's
// positions at first order (a dead centre, a parallelogram lying flat, a linkage held
// straight), where the multipliers are not determined by the motion. The reason into `why`.
bool loopsSingularAt(const Model& model, const JointTree& tree, const State& state,
                     std::string& why);

// How many of a closed tree's cut rows are independent over its free coordinates at q (the
// rows of a redundant loop, or of a singular position, depend on others); −1 when the mass
// matrix is singular.
int loopClosureRank(const Model& model, const JointTree& tree, const Eigen::VectorXd& q);

// A closed tree's cut rows at q: Φ and their Jacobian J over the tree's rates (rows as
// maximal coordinates order them: the cut joints' primitives, then the couplers). `direct`:
// as the loop stepper evaluates them, from the world-frame rates of points and axes along each
// side's chain (directCutRows); else through the general joint evaluation (the maximal
// solver's rows, turned into the tree's rates), as the accelerations and reactions do.
void cutRows(const Model& model, const JointTree& tree, const Eigen::VectorXd& q, bool direct,
             Eigen::VectorXd& Phi, Eigen::MatrixXd& J);

// A row over the bodies' velocities, as the velocity-level stepper's contact and stop rows are:
// its entries on up to two bodies' twists (State::v's layout: the origin's velocity in world
// axes, the turn rate in the body's axes; kGround: none).
struct BodyRow {
    int bodyA = kGround, bodyB = kGround;
    Eigen::Matrix<double, 6, 1> onA = Eigen::Matrix<double, 6, 1>::Zero();
    Eigen::Matrix<double, 6, 1> onB = Eigen::Matrix<double, 6, 1>::Zero();
};

// How impulses along body rows move a tree at the bodies' state `state` (the velocity-level
// stepper in joint coordinates: its contact and stop rows' responses).
struct ImpulseResponses {
    Eigen::MatrixXd rowsInRates;  // jᵀ: per row (column), the row over the rates, J T
    Eigen::MatrixXd Z;            // per row, the change of the rates per unit impulse, M⁻¹ jᵀ
    Eigen::MatrixXd U;            // the same change in the bodies' twists, T Z
    Eigen::MatrixXd M;            // M(q) (composite-rigid-body)
    // A closed tree's: per row, the impulses its cut rows and couplers take (cutRows × rows).
    Eigen::MatrixXd loopImpulses;
};
// Z = M⁻¹ jᵀ over the rates no motion prescribes (a motion holds its rate whatever pushes it:
// its entries stay 0), T the map from rates to the bodies' twists; on a closed tree the change
// that keeps its loops' and couplers' velocity rows, Z = M⁻¹ (jᵀ − Jcᵀ Λ) with Jc Z = 0 (the
// least change in the mass metric), Λ into loopImpulses. Fails where M is singular.
// With `addedMass` (nv × nv), the tree's M is taken as M + addedMass (a soft joint's implicit
// stiffness and damping: jointSpaceSoftStep), in Z and in out.M.
Status jointSpaceImpulseResponses(const Model& model, const JointTree& tree, const State& state,
                                  const std::vector<BodyRow>& rows, ImpulseResponses& out,
                                  const Eigen::MatrixXd* addedMass = nullptr);

// Soft joints under timeStepping in joint coordinates, stepped implicitly as maximal coordinates
// step them (stable at any stiffness): after an explicit step q̇* = q̇ₙ + h q̈ₙ whose q̈ holds
// their pull at the step's start, λ = K Φ + C Js q̇ₙ (ws.soft and its gains, evaluated at
// `state`, the step's start), the pull at the step's end velocity, λ⁺ = K (Φ + h Js q̇⁺) +
// C Js q̇⁺, is taken instead:
//   (M + h Jsᵀ (h K + C) Js) (q̇⁺ − q̇*) = −h Jsᵀ [(h K + C) Js q̇* − C Js q̇ₙ]
// over the free rates (a closed tree's loops kept at the velocity level), Js the soft rows over
// the rates. `qd` holds q̇* and receives q̇⁺; `softMass` receives h Jsᵀ (h K + C) Js, which the
// contact and stop rows' responses take too (what they push, the soft joints hold implicitly),
// and `prescribed` the generalised impulse the motions give on their rates meanwhile (0 on the
// others): what holds them against the change.
Status jointSpaceSoftStep(const Model& model, const JointTree& tree, const State& state,
                          const Workspace& ws, double h, Eigen::VectorXd& qd,
                          Eigen::MatrixXd& softMass, Eigen::VectorXd& prescribed);

// What the joints of a tree transmit over a velocity-level step that ended at `state`: the
// recursive Newton–Euler pass with the step's accelerations `qdd` (per rate, (q̇⁺ − q̇ₙ)/h)
// rather than the articulated-body ones, and besides the applied forces the external forces
// `external` (per body, a spatial force about the world origin, (moment, force): contact) on
// the bodies; on a closed tree, with what its cut rows exert on the bodies at the step's
// multipliers `cutMultipliers` (its couplers act along their rates). As jointSpaceTransmitted
// (the links' rates into `qd`).
Status jointSpaceTransmittedOverStep(const Model& model, const JointTree& tree, const State& state,
                                     Workspace& ws, const Eigen::VectorXd& qdd,
                                     const std::vector<Eigen::Matrix<double, 6, 1>>& external,
                                     const Eigen::VectorXd& cutMultipliers, Eigen::VectorXd& qd,
                                     std::vector<Eigen::Matrix<double, 6, 1>>& transmitted,
                                     Eigen::VectorXd& alongAxis,
                                     const Eigen::VectorXd* softLambda = nullptr);

// q̈ = −M⁻¹ h (M factored densely: O(n³) for a chain, for checks and small trees).
Status jointSpaceAccelerations(const Model& model, const JointTree& tree, double t,
                               const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               const State& memory, Workspace& ws, Eigen::VectorXd& qdd);

}  // namespace engine
