// Velocity-level time stepping (Anitescu–Potra, Stewart–Trinkle; seed 003 §0.10): one mixed
// LCP per step for joints, contact and friction.
//
//   v* = vₙ + h M⁻¹ g(qₙ, vₙ)                                     applied forces
//   v⁺ = v* − M⁻¹Φqᵀ μ + Σ_r M⁻¹J_rᵀ x_r                          joint and contact impulses
//   Φq v⁺ = b   (position rows b = −Φ(qₙ, tₙ₊₁)/h: the motion to tₙ₊₁ plus the full
//               correction of any residual; velocity rows ν(tₙ₊₁); acceleration rows
//               Φq vₙ + h γ)
//   contact rows complementary (contact_solver.h), qₙ₊₁ = qₙ ⊕ h v⁺, then projection.
//
// The joint rows are solved exactly (the KKT solver's Schur complement): the free velocity
// v_f meets them, and each contact row's response is projected onto them, so the iterative
// contact solver never sees a joint row and closed loops stay exact however few sweeps it
// makes. Without joints the responses are the free-body ones (12 numbers per row).
//
// Joint limits (LimitModel) are unilateral rows of the same complementarity problem as contact:
// a stop within reach of the step is a frictionless contact whose normal row is the joint
// coordinate's (c − lower ≥ 0, upper − c ≥ 0), with contact's speculative bound (close a gap
// at most), restitution and compliance; its impulse is the stop's. A problem of stops alone is
// solved exactly by Lemke's method (it is small), with contact by the scene's contact solver.
//
// Soft joints' rows (JointCompliance) join the joint rows with a compliance, stepped
// implicitly (seed 003 §0.11, as ODE's ERP/CFM and Box2D's soft step): a row of stiffness k and
// damping c pulls with λ = k (Φ + h Φq v⁺) + c Φq v⁺, i.e., with μ = h λ,
//
//   Φq v⁺ − e μ = −k Φ / (h k + c),   e = 1 / (h (h k + c)),
//
// stable at any stiffness and step; the implicit step adds about ω h / 2 to the damping ratio
// of a row ringing at ω. The energy their impulses take out and do not store (their dampers'
// and the step's own) is counted as dissipated.

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>

#include "engine/contact/collision_world.h"
#include "engine/contact/contact_solver.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/dynamics/stops.h"
#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/finite.h"
#include "engine/math/radix_order.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"

namespace engine {
namespace {

using contact::ContactRows;
using contact::Vec6;

// The first friction direction: along the slip when the contact slides (so box friction and
// the polyhedral cone both resist sliding with exactly μ z), else a fixed perpendicular to n.
Vec3 tangentOf(const Vec3& n, const Vec3& relativeVelocity = Vec3::Zero()) {
    const Vec3 slip = relativeVelocity - relativeVelocity.dot(n) * n;
    if (slip.norm() > 1e-6) return slip.normalized();
    const Vec3 helper = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : Vec3::UnitY();
    return n.cross(helper).normalized();
}

// One step is a pipeline of named stages, each a function of what the stages before it left
// in the step's data:
//
//   collide    contact points at qₙ, merged into the state's persistent points
//   assemble   applied forces and the free velocity v*; joint rows (Φq(qₙ) factored, targets
//              b); contact rows (normal and tangents, targets, warm starts)
//   solve      v* onto the joint rows, the contact rows' responses through the joints, the
//              contact LCP, the joint impulses μ
//   integrate  qₙ₊₁ = qₙ ⊕ h v⁺, the energy balance
//   project    positions and velocities onto the constraint manifold
//   record     the step's result (StepResult: λ = μ / h, contact forces, solver figures) and
//              the contact impulses kept for the next step's warm start
//
// The data lives in the stepper between steps so that a steady run allocates nothing.
// Stops farther than this beyond the reach of a step's motion are left out of its problem.
constexpr double kStopReachAngle = 1e-3;   // rad
constexpr double kStopReachLength = 1e-4;  // m
// From this many contact points up, their rows are built on the engine's threads.
constexpr std::size_t kParallelRows = 1024;
// From this many parts up, their collision poses are set on the engine's threads.
constexpr std::size_t kParallelParts = 1024;
// Sums over contacts or bodies are added in blocks of this many terms (sumInBlocks).
constexpr std::size_t kSumBlock = 256;
// A part is quiet in a step when no point of it moved farther than this in the last step (by
// its velocity now: |v| h + |ω| r h, r its reach from its centre of mass) [m]: its pairs with
// quiet parts or the ground keep their points without the narrow phase (CollisionWorld::
// setPartQuiet), moved with the parts. Each such pair is looked at afresh one step in
// kFreshEvery (in turn by its parts' indices, setQuietTurn: about the same work every step), so
// its points drift at most 2 kFreshEvery kQuietDistance from where the narrow phase would put
// them, and a pair of quiet parts coming within the margin is found as late. Both decided from
// the state alone (its velocities and time): a run resumed from a recorded state makes the
// same choices.
constexpr double kQuietDistance = 1e-9;
constexpr long long kFreshEvery = 8;
// A quiet part that moved less than kSettledDistance is settled: its pairs with settled parts
// (or the ground, or sleeping parts) are looked at afresh one step in kSettledEvery — their
// points drift no farther than a quiet pair's (2 kSettledEvery kSettledDistance = 2 kFreshEvery
// kQuietDistance), and are found as late. Most of a settling scatter's parts (8,200 of 10,000
// move less than 1e-12 m a step) have their pairs looked at that rarely.
constexpr long long kSettledEvery = 64;
constexpr double kSettledDistance = kQuietDistance * kFreshEvery / kSettledEvery;
// A group of contact points (an island) beyond this many is ordered by height with all the
// points at once (a radix sort, linear); smaller ones each on their own (orderByIslandAndHeight).
constexpr std::size_t kRadixGroup = 4096;
// A problem of stops and joint friction alone, up to this many rows, is solved by Lemke's
// method.
constexpr std::size_t kLemkeStops = 64;
// Joint friction: a coordinate slower than this at the start of a step is at rest (the static
// coefficient holds it) [rad/s or m/s]; rounds of the fixed point of its bounds at most.
constexpr double kStictionSpeed = 1e-4;
constexpr int kFrictionRounds = 8;

class TimeStepping final : public detail::FixedStepIntegrator {
public:
    TimeStepping(double stepSize, bool joints) : FixedStepIntegrator(stepSize), joints_(joints) {}
    void reset() override {
        tree_.reset();
        projectionImpulse_.resize(0);
    }

private:
    struct StepData {
        double h = 0.0, t1 = 0.0;
        Eigen::VectorXd q0, v0;
        // assemble
        double dampingPower = 0.0, actuatorPower = 0.0;
        Eigen::VectorXd vFree;  // v* = vₙ + h M⁻¹ g(qₙ, vₙ)
        SparseRowMatrix J0;     // Φq(qₙ), factored in the workspace's solver
        Eigen::VectorXd b;      // joint row targets: Φq v⁺ = b
        // With soft joints: the joint rows and the soft rows below them, their targets and
        // compliances, factored in softSolver_; the soft elastic energy at qₙ.
        SparseRowMatrix Jsoft;
        Eigen::VectorXd bSoft, compliance;
        double softEnergy0 = 0.0;
        contact::ContactQuery found;
        // One entry per contact point of found.points, then one per stop row (stops).
        contact::ContactProblem problem;
        std::vector<Vec3> tangents;  // per contact point: its first friction direction
        struct StopRow {
            int limit = 0;          // index into Model::limits
            double sign = 1.0;      // +1: the lower stop, −1: the upper one
            double gap = 0.0;       // sign (c − end) at qₙ: > 0 apart [rad or m]
            double approach = 0.0;  // sign ċ at vₙ
        };
        std::vector<StopRow> stops;
        struct FrictionRow {
            int friction = 0;         // index into Model::frictions
            std::size_t contact = 0;  // its row's index in problem.contacts
            // A ball joint at rest: its rows across the first (problem.contacts[contact + 1]'s
            // first tangent holds the third direction); 0: none.
            int extra = 0;
            double coefficient = 0.0;  // μs at rest at tₙ, μ sliding
            double reaction = 0.0;     // the lever term its bound has now [N·m or N]
        };
        std::vector<FrictionRow> frictions;
        struct CableRow {
            int force = 0;            // index into Model::forces (an inextensible cable)
            int span = 0;             // its span
            std::size_t contact = 0;  // its row's index in problem.contacts
        };
        std::vector<CableRow> cables;
        // solve
        Eigen::VectorXd v;            // v⁺
        Eigen::VectorXd vPositions;   // what the positions advance with (solveContacts)
        Eigen::VectorXd impulse;      // joint impulses μ
        Eigen::VectorXd softImpulse;  // the soft rows' impulses
        contact::ContactSolveReport report;
    };

    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        StepResult& result = ws.step;
        result.valid = false;
        result.status = run(model, state, ws, h);
        return result.status;
    }

    Status run(const Model& model, State& state, Workspace& ws, double h) {
        if (joints_) return runInJointCoordinates(model, state, ws, h);
        StepData& d = data_;
        begin(model, state, h);
        // (each phase's wall time, IntegratorStatistics, with contact on: a few clock reads a
        // step, nothing beside a mechanism's step of a few microseconds)
        using Clock = std::chrono::steady_clock;
        const bool timed = model.contact.enabled;
        Clock::time_point mark = timed ? Clock::now() : Clock::time_point{};
        const auto book = [&](double& seconds) {
            if (!timed) return;
            const Clock::time_point now = Clock::now();
            seconds += std::chrono::duration<double>(now - mark).count();
            mark = now;
        };
        if (Status s = assemble(model, state, ws); !s.ok) return s;
        book(stats_.assemblySeconds);
        if (Status s = solve(model, state, ws); !s.ok) return s;
        book(stats_.solveSeconds);
        integrate(model, state, ws);
        book(stats_.integrationSeconds);
        // The velocity v⁺ meets the joint rows at qₙ; the projection turns it onto them at qₙ₊₁
        // with impulses that belong to the step's reactions (a part swinging on a pin: its
        // centripetal load, m ω² r, is all there: the rows' targets at qₙ hold none of it).
        // (sleeping parts left where they are, their frames as they were: holdSleeping)
        if (Status s = projectState(model, state, ws, &stats_.projectionIterations, 0.0, true,
                                    &projectionImpulse_, holding(model, state));
            !s.ok)
            return s;
        if (projectionImpulse_.size() == d.impulse.size()) d.impulse += projectionImpulse_;
        if (sleeping(model, state)) updateSleep(model, state);
        record(model, state, ws);
        book(stats_.finishSeconds);
        return {};
    }

    // The same step in joint coordinates (the recursive formulation: an open tree, its free
    // parts among its links). The free rates q̇* = q̇ₙ + h q̈(qₙ, q̇ₙ) by the articulated-body
    // algorithm (motions prescribe theirs), the bodies' free velocity v* = T q̇*; the contact and
    // stop rows as above, over the bodies' velocities, their responses through the tree
    // (jointSpaceImpulseResponses: Z = M⁻¹ jᵀ in rates, U = T Z in the bodies' twists; the
    // joints hold by construction, there are no joint rows); the same contact solve; then
    // q̇⁺ = q̇* + Z x, qₙ₊₁ = qₙ ⊕ h q̇⁺. The step's accelerations (q̇⁺ − q̇ₙ)/h go with its result:
    // the joints' reactions are found from them and the contact forces (outputs).
    Status runInJointCoordinates(const Model& model, State& state, Workspace& ws, double h) {
        StepData& d = data_;
        if (Status s = tree_.build(model, state); !s.ok) return s;
        const JointTree& tree = *tree_;
        begin(model, state, h);
        ++stats_.evaluations;
        if (Status s = articulatedAccelerationsAt(model, tree, state, q_, qd_, ws, qdd_,
                                                  tree.closed() ? &loopMultipliers_ : nullptr);
            !s.ok)
            return s;
        d.dampingPower = ws.forceEnergies.dampingPower;
        d.actuatorPower = ws.forceEnergies.actuatorPower;
        const double motionPowerRate = ws.forceEnergies.motionPowerRate;
        qdPlus_ = qd_ + h * qdd_;
        // The rates the motions and moving frames prescribe: those that take them exactly where
        // they will be at the step's end, not q̇ₙ + h q̈ₙ, so that what the contact and stop rows
        // see them move at is where they go (a block riding a heaving platform stays on it, as
        // in maximal coordinates, whose rows are held at the position level after the step).
        const bool prescribes =
            tree.movingFrames() > 0 || std::any_of(tree.rateDriver.begin(), tree.rateDriver.end(),
                                                   [](int k) { return k >= 0; });
        if (prescribes) prescribedMeanRates(model, tree, d.t1, q_, h, qdPlus_);
        double motionWork = 0.0;
        if (model.softRows > 0) {
            // Soft joints stepped implicitly (jointSpaceSoftStep), their pull at the step's end
            // velocity: their dampers' power at its start left out of the dampers' (what their
            // impulses take out is counted when the step is recorded, as in maximal
            // coordinates).
            softRate_.noalias() = ws.soft.Phi_q * state.v;
            d.dampingPower -= softRate_.dot(ws.softDamping.cwiseProduct(softRate_));
            d.softEnergy0 = 0.5 * ws.soft.Phi.dot(ws.softStiffness.cwiseProduct(ws.soft.Phi));
            if (Status s =
                    jointSpaceSoftStep(model, tree, state, ws, h, qdPlus_, softMass_, softHeld_);
                !s.ok)
                return s;
            for (int e = 0; e < tree.nv; ++e)
                motionWork += softHeld_(e) * 0.5 * (qd_(e) + qdPlus_(e));
        }
        bodyStateFromJoints(model, tree, q_, qdPlus_, free_);
        d.vFree = free_.v;
        computeBodyFrames(model, state.q, state.v, ws.frames);
        if (ws.Minv.size() != model.velocitySize()) {  // (the free-body masses the rows read)
            ws.Minv.resize(model.velocitySize());
            for (int b = 0; b < model.bodyCount(); ++b) {
                const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
                layout::linear(ws.Minv, b).setConstant(1.0 / body.mass);
                layout::angular(ws.Minv, b) = body.inertia.cwiseInverse();
            }
        }
        d.problem.U.clear();
        unilateralRows(model, state, ws);
        d.report = {};  // (a step with no rows reports no solve, not the last step's)
        d.v = d.vFree;
        if (!d.frictions.empty()) aimBallRowsAtRest(model, ws, d.v);
        if (!d.problem.contacts.empty()) {
            bodyRows_.clear();
            for (const ContactRows& c : d.problem.contacts)
                for (int r = 0; r < 3; ++r)
                    bodyRows_.push_back({c.bodyA, c.bodyB, c.J[r][0], c.J[r][1]});
            if (Status s = jointSpaceImpulseResponses(model, tree, state, bodyRows_, responses_,
                                                      model.softRows > 0 ? &softMass_ : nullptr);
                !s.ok)
                return s;
            d.problem.U.assign(responses_.U);
            d.problem.rowsInRates = &responses_.rowsInRates;
            d.problem.rateResponses = &responses_.Z;
            if (!d.stops.empty()) softenStops(model);
            // Joint friction on the reaction: a fixed point of its bounds and the joints'
            // reactions over the step (the recursive Newton–Euler pass with the step's
            // accelerations and contact forces), as in maximal coordinates.
            for (int round = 0;; ++round) {
                d.v = d.vFree;
                if (Status s = solveContacts(model, state); !s.ok) return s;
                x_.resize(static_cast<Eigen::Index>(bodyRows_.size()));
                for (std::size_t ci = 0; ci < d.problem.contacts.size(); ++ci)
                    for (int r = 0; r < 3; ++r)
                        x_(static_cast<Eigen::Index>(3 * ci) + r) =
                            d.problem.contacts[ci].impulse[r];
                dqd_.noalias() = responses_.Z * x_;
                if (d.frictions.empty() || round + 1 >= kFrictionRounds) break;
                bool moved = false;
                if (Status s = updateFrictionBoundsInJointCoordinates(model, state, ws, moved);
                    !s.ok)
                    return s;
                if (!moved) break;
            }
            // A motion (or a moving frame) holds its rate against the impulses: the
            // generalised impulse it gives, (M Δq̇ − jᵀ x) on its rate, does work at the step's
            // mean rate.
            if (prescribes) {
                Mdqd_.noalias() = responses_.M * dqd_;
                for (int e = 0; e < tree.nv; ++e) {
                    if (!tree.prescribed(model, e)) continue;
                    const double impulse = Mdqd_(e) - responses_.rowsInRates.row(e).dot(x_);
                    motionWork += impulse * 0.5 * (qd_(e) + qdPlus_(e));
                }
            }
            qdPlus_ += dqd_;
            // (the loops' and couplers' impulses the contact took: their multipliers' share)
            if (tree.closed()) loopMultipliers_.noalias() += responses_.loopImpulses * x_ / h;
        }
        // integrate
        const double contactWork = workOfContact();
        if (model.softRows > 0) {  // the soft rows' impulses μ = h λ⁺ (record counts their work)
            softRate_.noalias() = ws.soft.Phi_q * d.v;
            d.softImpulse = h * (ws.softStiffness.cwiseProduct(ws.soft.Phi) +
                                 (h * ws.softStiffness + ws.softDamping).cwiseProduct(softRate_));
        }
        integrateJointCoordinates(tree, q_, qdPlus_, h);
        prescribeMotions(model, tree, d.t1, q_, qdPlus_);
        if (tree.closed())
            if (Status s = projectLoopClosure(model, tree, d.t1, q_, qdPlus_, 0.0,
                                              &stats_.projectionIterations, &ws.loopBestPivot);
                !s.ok)
                return s;
        bodyStateFromJoints(model, tree, q_, qdPlus_, state);
        state.t = d.t1;
        state.dissipatedEnergy += h * d.dampingPower - contactWork;
        // (the motions' work at the step's mean rate: Q q̇ₙ h, counted in the actuators' power,
        // and Q (q̇ₙ₊₁ − q̇ₙ)/2 h = Q q̈ h²/2)
        state.driverWork += h * d.actuatorPower + 0.5 * h * h * motionPowerRate + motionWork;
        d.impulse.resize(0);
        record(model, state, ws);
        StepResult& result = ws.step;
        result.jointAccelerations = (qdPlus_ - qd_) / h;
        if (tree.closed())
            result.loopMultipliers = loopMultipliers_;
        else
            result.loopMultipliers.resize(0);
        return {};
    }

    // The step's start (tₙ, qₙ, vₙ) and its contact points.
    void begin(const Model& model, State& state, double h) {
        StepData& d = data_;
        d.h = h;
        d.t1 = state.t + h;
        detail::copyOnThreads(d.q0, state.q);
        detail::copyOnThreads(d.v0, state.v);
        if (model.contact.enabled) {
            // (on the engine's threads or on this one, whichever has lately been faster: the
            // same points either way)
            stats_.collisionSeconds += collideSerially_.run([&] { collide(model, state); });
            // The points by island and height: the solve's order, not collision detection
            // (as Bullet's islands are built in its solve, outside its collision detection).
            stats_.orderingSeconds += orderSerially_.run([&] { orderContacts(model); });
        } else {
            d.found.points.clear();
            d.found.persistent.clear();
            d.found.rangeCount = 0;
        }
    }

    // collide: the contact points at qₙ, merged into the persistent points of the state; the
    // highest first (along gravity), so the first Gauss–Seidel sweep carries the weight of a
    // stack down to its base.
    void collide(const Model& model, State& state) {
        StepData& d = data_;
        if (!world_ || worldSerial_ != model.serial) {
            world_ = std::make_unique<contact::CollisionWorld>(model.contact);
            worldSerial_ = model.serial;
            std::vector<Transform> X_BP(model.parts.size());
            for (std::size_t p = 0; p < model.parts.size(); ++p) X_BP[p] = model.parts[p].X_BP;
            world_->setBodyFrames(X_BP);
            lastQ_.resize(0);
        }
        // A part that slept through the last step keeps the pose the world has for it, unless
        // the state is not the one the last step left (a run resumed elsewhere). (One that fell
        // asleep at the end of the last step moved in it: its pose is set once more.)
        const bool sleep = sleeping(model, state);
        const bool posesHeld = sleep && lastQ_.size() == d.q0.size() && lastQ_ == d.q0;
        stateHeld_ = posesHeld;
        if (!posesHeld) ++sleepEpoch_;
        prepareSleep(model);  // (each body's reach)
        const long long stepIndex = std::llround(state.t / d.h);
        world_->setQuietTurn(stepIndex % kSettledEvery, static_cast<int>(kFreshEvery),
                             static_cast<int>(kSettledEvery));
        // (each part's object on its own: on the threads for many)
        runRanges(model.parts.size(), kParallelParts, [&](std::size_t first, std::size_t last) {
            for (std::size_t p = first; p < last; ++p) {
                const int b = model.bodyOfPart[p];  // (not the part's model: a cache line a part)
                if (b == kGround) continue;
                const auto body = static_cast<std::size_t>(b);
                const bool asleep = sleep && state.rest[body] < 0.0;
                // (a part asleep through the last step, in the state that step left: where the
                // world has it, and quiet as every sleeping part is)
                if (asleep && posesHeld && stepIndex != 0 && world_->partAsleep(p)) continue;
                // (every part on the first step: parts set down at rest on the floor or inside
                // one another have no points yet to keep)
                const double moved = d.h * (layout::linear(d.v0, b).norm() +
                                            layout::angular(d.v0, b).norm() * radius_[body]);
                const bool slept = world_->partAsleep(p);
                // (its pose from its body's: the part's frame and its object's folded in the
                // world's array, not read from the part's model — a cache miss a part; none
                // for a part asleep through the last step)
                const Transform X_WB{bodyOrientation(d.q0, b), bodyPosition(d.q0, b)};
                world_->setPartFromBody(p, stepIndex != 0 && moved <= kQuietDistance,
                                        moved <= kSettledDistance, asleep,
                                        asleep && slept && posesHeld ? nullptr : &X_WB);
            }
        });
        // (the points left in the threads' ranges: orderContacts reads them from there)
        world_->query(model.contact.settings.margin, state.contacts, d.found,
                      contact::PointsIn::Ranges);
        // A moving part within the margin of a sleeping one wakes the sleeping one's island,
        // whose pairs are then looked at again.
        if (sleep) {
            d.found.joinRanges();  // (wakeTouched reads the points)
            if (wakeTouched(model, state)) {
                for (std::size_t p = 0; p < model.parts.size(); ++p)
                    if (const int b = model.parts[p].body; b != kGround)
                        world_->setPartAsleep(p, state.rest[static_cast<std::size_t>(b)] < 0.0);
                world_->query(model.contact.settings.margin, state.contacts, d.found,
                              contact::PointsIn::Ranges);
            }
        }
        queryEpoch_ = sleepEpoch_;
    }

    // The step's contact points (data_.found.points) by island, then by height from the floor
    // up (orderByIslandAndHeight); points the query left in its threads' ranges
    // (ContactQuery::rangeCount) are read from there and gathered in that order into the list.
    void orderContacts(const Model& model) {
        contact::ContactQuery& found = data_.found;
        std::vector<contact::ContactPoint>& points = found.points;
        islandStart_.clear();
        immovable_ = -1;
        const std::size_t ranges = found.rangeCount;
        rangeStart_.assign(1, 0);
        for (std::size_t r = 0; r < ranges; ++r)
            rangeStart_.push_back(rangeStart_.back() + found.pointRanges[r].size());
        const std::size_t n = ranges > 0 ? rangeStart_.back() : points.size();
        if (model.gravity.norm() <= 0.0 || n <= 1) {
            found.joinRanges();
            return;
        }
        const Vec3 up = -model.gravity.normalized();
        heights_.resize(n);
        pointBodies_.resize(n);
        if (ranges > 0) pointAt_.resize(n);
        // (each point's bodies read here, on the threads, where its record is read anyway: the
        // grouping then reads them from this short array, not from the records)
        runRanges(n, kParallelRows, [&](std::size_t first, std::size_t last) {
            // (the range holding point `first`, then the next ones as the points pass into them)
            std::size_t r =
                ranges > 0 ? static_cast<std::size_t>(std::upper_bound(rangeStart_.begin() + 1,
                                                                       rangeStart_.end(), first) -
                                                      rangeStart_.begin() - 1)
                           : 0;
            for (std::size_t k = first; k < last; ++k) {
                while (ranges > 0 && k >= rangeStart_[r + 1]) ++r;
                const contact::ContactPoint& p =
                    ranges > 0 ? found.pointRanges[r][k - rangeStart_[r]] : points[k];
                if (ranges > 0) pointAt_[k] = &p;
                heights_[k] = -(p.p_WA_W + p.p_WB_W).dot(up);
                pointBodies_[k] = {model.bodyOfPart[p.partA], model.bodyOfPart[p.partB]};
            }
        });
        orderByIslandAndHeight(model, n);
        if (ranges > 0) {  // (points resized from the last step's size: no zeroing but growth)
            points.resize(n);
            runRanges(n, kParallelRows, [&](std::size_t first, std::size_t last) {
                for (std::size_t k = first; k < last; ++k) points[k] = *pointAt_[order_[k]];
            });
            found.rangeCount = 0;
            return;
        }
        sorted_.resize(n);  // (from the last step's size: no zeroing but growth)
        runRanges(n, kParallelRows, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) sorted_[k] = points[order_[k]];
        });
        points.swap(sorted_);
    }

    // order_: the points by island, then by height (heights_; equal heights in query order).
    // The points of parts joined by contact, joints or couplers are grouped, the groups in the
    // order of their first point in the query's order (by part pair: the same groups in the same
    // order step after step). The solve's islands (no larger than these groups) keep the order
    // they would have by height alone, and each island's rows lie together: the engine's
    // threads, taking the same blocks of rows and islands step after step, find them in their
    // own core's cache. Small groups are sorted on their own (a column of a pile: a few dozen
    // points); one group, or one beyond kRadixGroup points, by a radix sort of all heights.
    void orderByIslandAndHeight(const Model& model, std::size_t n) {
        const int groups = groupPoints(model, n);
        // Parts joined by contact alone: each group is one of the contact solve's islands (its
        // points', the same order), given to it (ContactProblem::islandStart, by contactRows).
        const bool islands = model.joints.empty() && model.couplers.empty() &&
                             std::none_of(model.forces.begin(), model.forces.end(),
                                          [](const ForceModel& f) { return f.inextensible; });
        if (groups < 2) {
            radixOrder(heights_, order_, orderScratch_);
            if (islands && groups == 1) {
                islandStart_ = {0, n};
                immovable_ = groupRank_.back();
            }
            return;
        }
        groupStart_.assign(static_cast<std::size_t>(groups) + 1, 0);
        for (const int g : pointGroup_) ++groupStart_[static_cast<std::size_t>(g) + 1];
        std::size_t largest = 0;
        for (std::size_t g = 0; g < static_cast<std::size_t>(groups); ++g) {
            largest = std::max(largest, groupStart_[g + 1]);
            groupStart_[g + 1] += groupStart_[g];
        }
        if (islands) {
            islandStart_ = groupStart_;
            immovable_ = groupRank_.back();
        }
        const auto lower = [&](std::size_t a, std::size_t b) { return heights_[a] < heights_[b]; };
        if (largest > kRadixGroup) {
            radixOrder(heights_, order_, orderScratch_);
            grouped_.resize(n);
            for (const std::size_t k : order_)
                grouped_[groupStart_[static_cast<std::size_t>(pointGroup_[k])]++] = k;
            order_.swap(grouped_);
            return;
        }
        // By group in query order, then each group by height (stable: ties in query order).
        grouped_.assign(groupStart_.begin(), groupStart_.end() - 1);  // (each group's next place)
        order_.resize(n);
        for (std::size_t k = 0; k < n; ++k)
            order_[grouped_[static_cast<std::size_t>(pointGroup_[k])]++] = k;
        // (each group on its own: on the engine's threads for many points)
        const auto sortGroup = [&](std::size_t g) {
            const auto first = order_.begin() + static_cast<std::ptrdiff_t>(groupStart_[g]);
            const auto last = order_.begin() + static_cast<std::ptrdiff_t>(groupStart_[g + 1]);
            if (last - first > 32) {
                std::stable_sort(first, last, lower);
                return;
            }
            for (auto at = first + 1; at < last; ++at) {  // (insertion: few points)
                const std::size_t k = *at;
                auto to = at;
                for (; to > first && lower(k, *(to - 1)); --to) *to = *(to - 1);
                *to = k;
            }
        };
        if (workerThreads() < 2 || n < kParallelRows) {
            for (std::size_t g = 0; g < static_cast<std::size_t>(groups); ++g) sortGroup(g);
            return;
        }
        // (ranges of groups of about as many points each)
        constexpr std::size_t kRanges = 8;
        runTasks(static_cast<int>(kRanges), [&](int r) {
            const auto from = static_cast<std::size_t>(
                std::lower_bound(groupStart_.begin(), groupStart_.end() - 1,
                                 n * static_cast<std::size_t>(r) / kRanges) -
                groupStart_.begin());
            const auto to = static_cast<std::size_t>(
                std::lower_bound(groupStart_.begin(), groupStart_.end() - 1,
                                 n * static_cast<std::size_t>(r + 1) / kRanges) -
                groupStart_.begin());
            for (std::size_t g = from; g < (r + 1 == kRanges ? groupStart_.size() - 1 : to); ++g)
                sortGroup(g);
        });
    }

    // Each point's group (pointGroup_, numbered in query order); the number of groups, 1 with
    // cables (a cable's spans are rows of the contact problem too, joining parts this does not
    // follow: with cables, the points stay in height order alone).
    int groupPoints(const Model& model, std::size_t n) {
        if (std::any_of(model.forces.begin(), model.forces.end(),
                        [](const ForceModel& f) { return f.inextensible; }))
            return 1;
        const auto bodies = static_cast<std::size_t>(model.bodyCount());
        groupRoot_.resize(bodies + 1);  // (the last: points between two parts that cannot move)
        for (std::size_t b = 0; b <= bodies; ++b) groupRoot_[b] = static_cast<int>(b);
        const auto root = [&](int b) {
            while (groupRoot_[static_cast<std::size_t>(b)] != b)
                b = groupRoot_[static_cast<std::size_t>(b)] =
                    groupRoot_[static_cast<std::size_t>(groupRoot_[static_cast<std::size_t>(b)])];
            return b;
        };
        const auto join = [&](int x, int y) {
            if (x < 0 || y < 0) return;
            const int a = root(x), b = root(y);
            if (a != b) groupRoot_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
        };
        for (const JointModel& joint : model.joints)
            join(model.markers[static_cast<std::size_t>(joint.markerI)].body,
                 model.markers[static_cast<std::size_t>(joint.markerJ)].body);
        // (a coupler's row moves the parts of all its joints: one group)
        for (const CouplerModel& coupler : model.couplers) {
            int anchor = -1;  // (the first moving part of its joints; the others joined to it)
            for (const CouplerTermModel& term : coupler.terms) {
                const JointModel& joint = model.joints[static_cast<std::size_t>(term.joint)];
                for (const int marker : {joint.markerI, joint.markerJ}) {
                    const int body = model.markers[static_cast<std::size_t>(marker)].body;
                    if (anchor < 0) anchor = body;
                    join(anchor, body);
                }
            }
        }
        const auto bodyOf = [&](const PointBodies& p) {
            return p.a >= 0 ? p.a : p.b >= 0 ? p.b : static_cast<int>(bodies);
        };
        for (const PointBodies& p : pointBodies_) join(p.a, p.b);
        // Each point's group, numbered in query order (groupRank_.back(): the group of the points
        // between two parts that cannot move, if any).
        groupRank_.assign(bodies + 1, -1);
        pointGroup_.resize(n);
        int groups = 0;
        for (std::size_t k = 0; k < n; ++k) {
            int& rank = groupRank_[static_cast<std::size_t>(root(bodyOf(pointBodies_[k])))];
            if (rank < 0) rank = groups++;
            pointGroup_[k] = rank;
        }
        return groups;
    }

    // Sleeping (ContactSettings::sleepTime > 0, maximal coordinates): State::rest per body.
    bool sleeping(const Model& model, const State& state) const {
        return !joints_ && model.contact.enabled && model.contact.settings.sleepTime > 0.0 &&
               state.rest.size() == static_cast<std::size_t>(model.bodyCount());
    }

    // The bodies asleep at the step's start (the query has woken those a moving part reached):
    // no row of the step holds one (their points rest, passed on as they are), and updateSleep
    // puts each back where it was, at rest, after the step — so the step leaves them out: no
    // free velocity (v* = vₙ = 0), no motion (retract). Of those asleep through the last step
    // too, at rest, in the state that step left and in the same workspace, the frames are the
    // ones it formed (the same pose, at rest): not formed again, and no gravity is taken for
    // them. (Not with joint rows or soft joints, whose projection and record form frames at
    // the step's end.) None when nothing sleeps.
    detail::HeldBodies holdSleeping(const Model& model, const State& state, const Workspace& ws) {
        if (!sleeping(model, state)) {
            stillBefore_.clear();
            return {};
        }
        const auto n = static_cast<std::size_t>(model.bodyCount());
        const bool framesKept = stateHeld_ && stillBefore_.size() == n && ws.frames.size() == n &&
                                framesOf_ == &ws && stillSerial_ == model.serial &&
                                model.constraintRows() == 0 && model.softRows == 0;
        still_.resize(n);
        framesHeld_.resize(n);
        stillBefore_.resize(n);
        bool any = false;
        for (std::size_t body = 0; body < n; ++body) {
            const bool asleep = state.rest[body] < 0.0;
            const bool atRest =
                asleep && layout::twist(state.v, static_cast<int>(body)).isZero(0.0);
            framesHeld_[body] = framesKept && atRest && stillBefore_[body];
            still_[body] = asleep;
            // (its frame formed now at rest: held next step while it sleeps on)
            stillBefore_[body] = atRest;
            any = any || asleep;
        }
        framesOf_ = &ws;
        stillSerial_ = model.serial;
        if (!any) return {};
        return {&still_, &framesHeld_};
    }

    // The bodies held still through this step (holdSleeping), or null.
    const std::vector<char>* holding(const Model& model, const State& state) const {
        return sleeping(model, state) &&
                       still_.size() == static_cast<std::size_t>(model.bodyCount())
                   ? &still_
                   : nullptr;
    }

    // Which bodies may sleep (a free part: no joint, no force element on it) and the radius of
    // each one's bounding sphere about its centre of mass, for the model's serial.
    void prepareSleep(const Model& model) {
        const auto n = static_cast<std::size_t>(model.bodyCount());
        if (sleepSerial_ == model.serial && sleepable_.size() == n) return;
        sleepSerial_ = model.serial;
        sleepable_.assign(n, 1);
        radius_.assign(n, 0.0);
        auto attached = [&](int marker) {
            if (marker < 0 || static_cast<std::size_t>(marker) >= model.markers.size()) return;
            const int b = model.markers[static_cast<std::size_t>(marker)].body;
            if (b >= 0) sleepable_[static_cast<std::size_t>(b)] = 0;
        };
        for (const JointModel& joint : model.joints) {
            attached(joint.markerI);
            attached(joint.markerJ);
        }
        for (const ForceModel& force : model.forces) {
            attached(force.markerI);
            attached(force.markerJ);
            for (const int m : force.via) attached(m);
        }
        for (std::size_t p = 0; p < model.parts.size() && p < model.contact.parts.size(); ++p) {
            const PartModel& part = model.parts[p];
            if (part.body < 0) continue;
            double& r = radius_[static_cast<std::size_t>(part.body)];
            for (const Shape& s : model.contact.parts[p].shapes) {
                const Vec3 centre = part.X_BP.R * s.X_PG.p + part.X_BP.p;
                r = std::max(r, centre.norm() + boundingRadius(s));
            }
        }
    }

    static double boundingRadius(const Shape& s) {
        switch (s.type) {
        case ShapeType::Box:
            return 0.5 * s.size.norm();
        case ShapeType::Sphere:
            return s.radius;
        case ShapeType::Cylinder:
        case ShapeType::Cone:
            return std::hypot(s.radius, 0.5 * s.length);
        case ShapeType::Capsule:
            return s.radius + 0.5 * s.length;
        case ShapeType::Mesh: {
            double r = 0.0;
            if (s.mesh)
                for (const Vec3& x : s.mesh->vertices)
                    r = std::max(r, s.scale.cwiseProduct(x).norm());
            return r;
        }
        case ShapeType::Plane:
            return 0.0;
        }
        return 0.0;
    }

    // Union–find over bodies (sleepParent_).
    int islandRoot(int b) {
        while (sleepParent_[static_cast<std::size_t>(b)] != b)
            b = sleepParent_[static_cast<std::size_t>(b)] =
                sleepParent_[static_cast<std::size_t>(sleepParent_[static_cast<std::size_t>(b)])];
        return b;
    }
    void joinIslands(int a, int b) {
        if (a < 0 || b < 0) return;  // (the ground joins nothing)
        a = islandRoot(a);
        b = islandRoot(b);
        if (a != b) sleepParent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }

    // Wakes every sleeping island a moving part touches (a point of the query between a moving
    // and a sleeping part); whether one woke. A sleeping island: its parts joined by the
    // points they rest on one another with.
    bool wakeTouched(const Model& model, State& state) {
        StepData& d = data_;
        auto asleep = [&](int b) {
            return b >= 0 && state.rest[static_cast<std::size_t>(b)] < 0.0;
        };
        bool touched = false;
        for (const contact::ContactPoint& p : d.found.points)
            if (asleep(model.bodyOfPart[p.partA]) || asleep(model.bodyOfPart[p.partB])) {
                touched = true;
                break;
            }
        if (!touched) return false;
        const int n = model.bodyCount();
        sleepParent_.resize(static_cast<std::size_t>(n));
        for (int b = 0; b < n; ++b) sleepParent_[static_cast<std::size_t>(b)] = b;
        for (const ContactPointState& c : d.found.persistent) {
            const int a = model.bodyOfPart[static_cast<std::size_t>(c.partA)],
                      b = model.bodyOfPart[static_cast<std::size_t>(c.partB)];
            if (asleep(a) && asleep(b)) joinIslands(a, b);
        }
        wake_.assign(static_cast<std::size_t>(n), 0);
        for (const contact::ContactPoint& p : d.found.points)
            for (const int b : {model.bodyOfPart[p.partA], model.bodyOfPart[p.partB]})
                if (asleep(b)) wake_[static_cast<std::size_t>(islandRoot(b))] = 1;
        for (int b = 0; b < n; ++b)
            if (asleep(b) && wake_[static_cast<std::size_t>(islandRoot(b))])
                state.rest[static_cast<std::size_t>(b)] = 0.0;
        ++sleepEpoch_;
        return true;
    }

    // After the step: sleeping bodies held where they were, at rest; each moving body's time
    // at rest; each island of moving bodies (joined by this step's contact points) whose
    // every body may sleep and has been at rest for the sleep time falls asleep, its kinetic
    // energy (what the solver's tolerance left) counted as dissipated.
    void updateSleep(const Model& model, State& state) {
        StepData& d = data_;
        prepareSleep(model);
        const ContactSettings& settings = model.contact.settings;
        const int n = model.bodyCount();
        bool anyAwake = false;
        for (int b = 0; b < n; ++b) {
            double& rest = state.rest[static_cast<std::size_t>(b)];
            if (rest < 0.0) {
                layout::position(state.q, b) = layout::position(d.q0, b);
                layout::orientation(state.q, b) = layout::orientation(d.q0, b);
                layout::twist(state.v, b).setZero();
                continue;
            }
            anyAwake = true;
            const double speed =
                layout::linear(state.v, b).norm() +
                layout::angular(state.v, b).norm() * radius_[static_cast<std::size_t>(b)];
            rest = sleepable_[static_cast<std::size_t>(b)] && speed < settings.sleepSpeed
                       ? rest + d.h
                       : 0.0;
        }
        if (!anyAwake) {
            lastQ_ = state.q;
            return;
        }
        sleepParent_.resize(static_cast<std::size_t>(n));
        for (int b = 0; b < n; ++b) sleepParent_[static_cast<std::size_t>(b)] = b;
        for (const contact::ContactPoint& p : d.found.points)
            joinIslands(model.bodyOfPart[p.partA], model.bodyOfPart[p.partB]);
        // Per island root: the shortest rest of its bodies.
        shortestRest_.assign(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
        for (int b = 0; b < n; ++b) {
            const double rest = state.rest[static_cast<std::size_t>(b)];
            if (rest < 0.0) continue;
            double& shortest = shortestRest_[static_cast<std::size_t>(islandRoot(b))];
            shortest = std::min(shortest, rest);
        }
        bool fell = false;
        for (int b = 0; b < n; ++b) {
            double& rest = state.rest[static_cast<std::size_t>(b)];
            if (rest < 0.0 ||
                shortestRest_[static_cast<std::size_t>(islandRoot(b))] < settings.sleepTime)
                continue;
            const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
            const Vec3 w = layout::angular(state.v, b);
            state.dissipatedEnergy += 0.5 * (body.mass * layout::linear(state.v, b).squaredNorm() +
                                             w.dot(body.inertia.cwiseProduct(w)));
            layout::twist(state.v, b).setZero();
            rest = -1.0;
            fell = true;
        }
        if (fell) ++sleepEpoch_;
        lastQ_ = state.q;
    }

    // assemble: forces, the free velocity, the joint rows and the contact rows.
    Status assemble(const Model& model, const State& state, Workspace& ws) {
        StepData& d = data_;
        const double h = d.h;
        ++stats_.evaluations;
        // Forces (soft joints evaluated, not applied: they are rows of the solve), Φq(qₙ)
        // factored, v* (sleeping parts left where they are: holdSleeping).
        if (Status s = detail::beginStep(model, state, ws, h, false, start_,
                                         holdSleeping(model, state, ws));
            !s.ok)
            return s;
        d.dampingPower = start_.dampingPower;
        d.actuatorPower = start_.actuatorPower;
        d.vFree.swap(start_.vFree);  // (beginStep writes it whole each step)

        // Joint rows: targets b at tₙ₊₁.
        const int rows = model.constraintRows();
        if (rows > 0) {
            d.J0 = ws.constraints.Phi_q;
            level_ = ws.constraints.level;
            evaluateConstraintResiduals(model, d.t1, ws.frames, ws.constraints);  // frames at qₙ
            d.b.resize(rows);
            for (int r = 0; r < rows; ++r) {
                switch (level_[static_cast<std::size_t>(r)]) {
                case MotionLevel::Position:
                    d.b(r) = -ws.constraints.Phi(r) / h;
                    break;
                case MotionLevel::Velocity:
                    d.b(r) = ws.constraints.nu(r);
                    break;
                case MotionLevel::Acceleration:
                    d.b(r) = start_.accelerationTarget(r);
                    break;
                }
            }
        }

        if (model.softRows > 0) softRows(model, ws);

        unilateralRows(model, state, ws);
        return {};
    }

    // The rows of the contact problem: contact, the stops within reach, joint friction.
    void unilateralRows(const Model& model, const State& state, Workspace& ws) {
        StepData& d = data_;
        d.problem.writeRows = nullptr;    // (contactRows sets it again where rows are written late)
        d.problem.rowsInRates = nullptr;  // (joint coordinates set them with the responses)
        d.problem.rateResponses = nullptr;
        d.tangents.clear();
        d.stops.clear();
        d.frictions.clear();
        d.cables.clear();
        // (contactRows resizes the rows from the last step's count: clear() then resize() would
        // zero every contact's rows before writing them)
        if (model.contact.enabled) {
            // (on the threads or not, as the collision query: begin())
            rowsSerially_.run([&] { contactRows(model, ws); });
        } else {
            d.problem.contacts.clear();
            d.problem.islandStart.clear();
        }
        if (!model.limits.empty()) stopRows(model, state, ws);
        if (!model.frictions.empty()) frictionRows(model, ws);
        cableRows(model, state, ws);
        // (rows besides the points': the islands are the solver's to find)
        if (d.problem.contacts.size() != d.found.points.size()) d.problem.islandStart.clear();
    }

    // The rows of the inextensible cables' spans within reach of their free length: a span
    // whose slack its rate could take up within the step, before or after the applied forces,
    // with room to spare. The row's "normal" is the slack's rate, −l̇ (its impulse the span's
    // tension times h, pulling its ends together), closing the slack at most, taking up a
    // stretch (projection's round-off) as contact does a penetration.
    void cableRows(const Model& model, const State& state, const Workspace& ws) {
        StepData& d = data_;
        const double h = d.h;
        const ContactSettings& settings = model.contact.settings;
        std::vector<int> offsets;
        for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
            const ForceModel& force = model.forces[static_cast<std::size_t>(f)];
            if (!force.inextensible || !force.on) continue;
            if (offsets.empty()) offsets = jointCoordinateOffsets(model);
            const std::vector<CableSpanRow> spans =
                cableSpanRows(model, force, ws.frames, state.jointCoordinates, offsets);
            for (int s = 0; s < static_cast<int>(spans.size()); ++s) {
                const CableSpanRow& span = spans[static_cast<std::size_t>(s)];
                if (span.body[0] == kGround && span.body[1] == kGround) continue;
                double rate = 0.0, freeRate = 0.0;
                for (int side = 0; side < 2; ++side)
                    if (span.body[side] != kGround) {
                        rate += span.J[side].dot(layout::twist(d.v0, span.body[side]));
                        freeRate += span.J[side].dot(layout::twist(d.vFree, span.body[side]));
                    }
                const double gap = span.limit - span.length;
                const double reach =
                    2.0 * h * std::max(std::abs(rate), std::abs(freeRate)) + kStopReachLength;
                if (gap > reach) continue;
                ContactRows row;
                row.bodyA = span.body[0];
                row.bodyB = span.body[1];
                for (int side = 0; side < 2; ++side) {
                    for (int r = 0; r < 3; ++r) row.J[r][side] = Vec6::Zero();
                    row.Minv[side] = Vec6::Zero();
                    if (span.body[side] != kGround) {
                        row.J[0][side] = -span.J[side];
                        row.Minv[side] = layout::twist(ws.Minv, span.body[side]);
                    }
                }
                row.target = gap > 0.0 ? -gap / h : settings.stabilization * -gap / h;
                row.bias = std::max(0.0, row.target);  // (moving the positions only)
                d.cables.push_back({f, s, d.problem.contacts.size()});
                d.problem.contacts.push_back(row);
            }
        }
    }

    // The soft joints' rows below the joint rows, with their compliances and targets (above),
    // factored together.
    void softRows(const Model& model, Workspace& ws) {
        StepData& d = data_;
        const double h = d.h;
        const int rows = model.constraintRows(), ns = model.softRows;
        stackRows(rows > 0 ? &d.J0 : nullptr, ws.soft.Phi_q, softSerial_ != model.serial, d.Jsoft);
        d.compliance.setZero(rows + ns);
        d.bSoft.resize(rows + ns);
        d.bSoft.head(rows) = d.b.head(rows);
        d.softEnergy0 = 0.5 * ws.soft.Phi.dot(ws.softStiffness.cwiseProduct(ws.soft.Phi));
        for (int r = 0; r < ns; ++r) {
            const double k = ws.softStiffness(r), c = ws.softDamping(r);
            // (a row that moves nothing, by frequency, holds with nothing: e huge)
            const double hold = std::max(h * k + c, 1e-200);
            d.compliance(rows + r) = 1.0 / (h * hold);
            d.bSoft(rows + r) = -k * ws.soft.Phi(r) / hold;
        }
        softSolver_.setCompliance(d.compliance);
        if (softSerial_ != model.serial) {
            softSolver_.analyze(d.Jsoft, ws.Minv);
            softSerial_ = model.serial;
        } else {
            softSolver_.factorize(d.Jsoft, ws.Minv);
        }
    }

    // out = [A; B] (A may be null); the pattern is laid out again for a new model (`newModel`),
    // else only the values are copied into the last call's.
    static void stackRows(const SparseRowMatrix* A, const SparseRowMatrix& B, bool newModel,
                          SparseRowMatrix& out) {
        const Eigen::Index ra = A ? A->rows() : 0;
        const Eigen::Index nnz = (A ? A->nonZeros() : 0) + B.nonZeros();
        if (newModel || out.rows() != ra + B.rows() || out.cols() != B.cols() ||
            out.nonZeros() != nnz) {
            out.resize(ra + B.rows(), B.cols());
            out.resizeNonZeros(nnz);
            int* outer = out.outerIndexPtr();
            int* inner = out.innerIndexPtr();
            Eigen::Index at = 0;
            auto copyPattern = [&](const SparseRowMatrix& M, Eigen::Index first) {
                for (Eigen::Index r = 0; r < M.rows(); ++r) {
                    outer[first + r] = static_cast<int>(at);
                    for (int p = M.outerIndexPtr()[r]; p < M.outerIndexPtr()[r + 1]; ++p)
                        inner[at++] = M.innerIndexPtr()[p];
                }
            };
            if (A) copyPattern(*A, 0);
            copyPattern(B, ra);
            outer[ra + B.rows()] = static_cast<int>(at);
        }
        double* values = out.valuePtr();
        if (A) values = std::copy(A->valuePtr(), A->valuePtr() + A->nonZeros(), values);
        std::copy(B.valuePtr(), B.valuePtr() + B.nonZeros(), values);
    }

    // solve: v* meets the joint rows; the contact rows' responses through the joints, then the
    // contact LCP (joint rows exact through the responses); the joint impulses μ the step
    // amounts to.
    Status solve(const Model& model, State& state, Workspace& ws) {
        StepData& d = data_;
        const int rows = model.constraintRows();
        // The joint rows, with the soft rows below them when there are any.
        const bool soft = model.softRows > 0;
        KktSolver& kkt = soft ? softSolver_ : ws.solver;
        const SparseRowMatrix& J = soft ? d.Jsoft : d.J0;
        const Eigen::VectorXd& b = soft ? d.bSoft : d.b;
        const int allRows = rows + model.softRows;
        detail::copyOnThreads(d.v, d.vFree);
        if (allRows > 0) {
            // (with the size of its terms: a joint row dropped at a singular position that the
            // mechanism has left is taken back, kkt_solver.h)
            kkt.project(J * d.v - b, dv_, nullptr, equationScale(J, d.v, b));
            d.v += dv_;
        }
        if (!d.frictions.empty()) aimBallRowsAtRest(model, ws, d.v);
        if (allRows > 0 && !d.problem.contacts.empty())
            projectResponses(model, kkt, J);
        else
            d.problem.U.clear();  // the free-body responses apply
        if (!d.stops.empty()) softenStops(model);
        // Joint friction's bounds come from the joints' reactions, which the problem's solution
        // changes: a fixed point, from the last step's reactions, to round-off (a few rounds;
        // a block on a slide: one).
        // (each round from the velocity that meets the joints, kept for the rounds after the
        // first)
        if (!d.frictions.empty()) vJoints_ = d.v;
        for (int round = 0;; ++round) {
            if (round > 0) d.v = vJoints_;
            if (Status s = solveProblem(model, state, kkt, J, b); !s.ok) return s;
            if (d.frictions.empty() || !updateFrictionBounds(model, ws) ||
                round + 1 >= kFrictionRounds)
                break;
        }
        return {};
    }

    // The contact problem from the velocity that meets the joints (d.v, then v⁺ there), and the
    // joint impulses μ with it.
    Status solveProblem(const Model& model, State& state, KktSolver& kkt, const SparseRowMatrix& J,
                        const Eigen::VectorXd& b) {
        StepData& d = data_;
        const int rows = model.constraintRows();
        const bool soft = model.softRows > 0;
        const int allRows = rows + model.softRows;
        if (Status s = solveContacts(model, state); !s.ok) return s;
        // μ with v⁺ = v_c − M⁻¹Φqᵀμ, where v_c is v* plus the contact impulses (for reactions,
        // driver work and the energy balance).
        d.impulse.setZero(rows);
        d.softImpulse.resize(0);
        if (allRows > 0) {
            vc_ = d.vFree;
            for (const ContactRows& c : d.problem.contacts)
                for (int r = 0; r < 3; ++r) {
                    if (c.bodyA >= 0) layout::twist(vc_, c.bodyA) += c.MinvJ(r, 0) * c.impulse[r];
                    if (c.bodyB >= 0) layout::twist(vc_, c.bodyB) += c.MinvJ(r, 1) * c.impulse[r];
                }
            if (soft) {
                kkt.project(J * vc_ - b, dv_, &impulseAll_);
                d.impulse = impulseAll_.head(rows);
                d.softImpulse = impulseAll_.tail(model.softRows);
            } else {
                kkt.project(J * vc_ - b, dv_, &d.impulse);
            }
        }
        return {};
    }

    // The contact problem from d.v (the velocity that meets the joints) to v⁺ in d.v.
    Status solveContacts(const Model& model, State& state) {
        StepData& d = data_;
        d.report = {};
        if (!d.problem.contacts.empty()) {
            const ContactSettings& settings = model.contact.settings;
            // Stops and joint friction alone: a small problem, solved exactly (PGS if Lemke
            // finds no solution).
            const bool jointsAlone =
                d.found.points.empty() && d.problem.contacts.size() <= kLemkeStops;
            const bool lemke = settings.solver == ContactSolverType::Lemke || jointsAlone;
            // (the positions advance with d.vPositions: ContactRows::bias)
            if (lemke) d.report = contact::solveLemke(d.problem, d.v, &d.vPositions);
            if (!lemke || !d.report.converged)
                d.report = contact::solvePgs(d.problem, d.v, settings.iterations,
                                             settings.tolerance, true, &d.vPositions);
            if (!d.report.converged) ++state.unconvergedContactSteps;
            if (!allFiniteOnThreads(d.v))
                return Status::failure(
                    "the contact solve produced a non-finite velocity at t = " + timeText(d.t1), {},
                    Cause::NotFinite);
        }
        return {};
    }

    // The work of the contact and friction impulses at the mean of the step's velocities.
    double workOfContact() {
        StepData& d = data_;
        if (d.problem.contacts.empty()) return 0.0;
        mean_.resize(d.v.size());
        runRanges(static_cast<std::size_t>(d.v.size()) / layout::kVelocitiesPerBody,
                  kParallelBodies, [&](std::size_t first, std::size_t last) {
                      const auto at = static_cast<Eigen::Index>(layout::kVelocitiesPerBody * first);
                      const auto n =
                          static_cast<Eigen::Index>(layout::kVelocitiesPerBody * (last - first));
                      mean_.segment(at, n) = 0.5 * (d.v0.segment(at, n) + d.v.segment(at, n));
                  });
        return sumInBlocks(d.problem.contacts.size(), [&](std::size_t k) {
            const ContactRows& c = d.problem.contacts[k];
            double work = 0.0;
            for (int r = 0; r < 3; ++r) work += c.impulse[r] * contact::rowVelocity(c, r, mean_);
            return work;
        });
    }

    // Σ term(k) over k < count, added within blocks of kSumBlock terms and then block by block:
    // the same sum, bit for bit, whichever thread adds which block (on the engine's threads for
    // many terms).
    template <class Term>
    double sumInBlocks(std::size_t count, const Term& term) {
        const std::size_t blocks = (count + kSumBlock - 1) / kSumBlock;
        blockSums_.resize(blocks);
        runRanges(blocks, kParallelRows / kSumBlock, [&](std::size_t first, std::size_t last) {
            for (std::size_t b = first; b < last; ++b) {
                double sum = 0.0;
                for (std::size_t k = b * kSumBlock; k < std::min(count, (b + 1) * kSumBlock); ++k)
                    sum += term(k);
                blockSums_[b] = sum;
            }
        });
        double sum = 0.0;
        for (const double blockSum : blockSums_) sum += blockSum;
        return sum;
    }

    // integrate: the new positions and velocities, and the energy balance. Contact and
    // friction take out minus the work of their impulses at the mean of the velocities before
    // and after the step, x·J(vₙ + v⁺)/2 (the step's change of kinetic energy is the work of
    // all its impulses at that mean velocity; a resting or rolling contact does none).
    // The positions advance with the velocities that met the contacts' whole targets
    // (ContactRows::bias: v⁺ less the stabilisation's push-out), displaced by δq = h (v_p − v⁺)
    // beyond v⁺'s: against the applied forces g = M (v* − vₙ) / h, that changes their potential by
    // −gᵀδq, which the stabilisation put in (booked as contact work was: negative dissipation).
    void integrate(const Model& model, State& state, const Workspace& ws) {
        StepData& d = data_;
        const double contactWork = workOfContact();
        const bool split = !d.problem.contacts.empty();
        const auto bodies = static_cast<std::size_t>(model.bodyCount());
        const double stabilisation = !split ? 0.0 : sumInBlocks(bodies, [&](std::size_t body) {
            const int b = static_cast<int>(body);
            const auto inverseMass = layout::twist(ws.Minv, b);
            const auto applied = layout::twist(d.vFree, b) - layout::twist(d.v0, b);
            const auto displaced = layout::twist(d.vPositions, b) - layout::twist(d.v, b);
            double term = 0.0;
            for (int i = 0; i < 6; ++i)
                if (inverseMass(i) > 0.0 && displaced(i) != 0.0)
                    term -= applied(i) * displaced(i) / inverseMass(i);
            return term;
        });
        // (state.q is qₙ still, d.q0: nothing between begin() and here moves it; sleeping parts
        // stay where they are: holdSleeping)
        detail::retract(model, state.q, split ? d.vPositions : d.v, d.h, holding(model, state));
        detail::copyOnThreads(state.v, d.v);
        state.t = d.t1;
        state.dissipatedEnergy += d.h * d.dampingPower - contactWork - stabilisation;
        state.driverWork += d.h * d.actuatorPower;
        if (model.constraintRows() > 0) detail::addDriverWork(model, d.J0, d.impulse, d.v, state);
    }

    // record: the step's result for outputs at tₙ₊₁, and the contact impulses kept with their
    // points in the state (the next step's warm start).
    void record(const Model& model, State& state, Workspace& ws) {
        StepData& d = data_;
        StepResult& result = ws.step;
        if (model.softRows > 0) {
            // The soft joints' energy: what their impulses took out, μs·Φs(vₙ + v⁺)/2, less
            // what they store more at qₙ₊₁, was dissipated.
            mean_ = 0.5 * (d.v0 + d.v);
            const double work = d.softImpulse.dot(ws.soft.Phi_q * mean_);
            computeBodyFrames(model, state.q, state.v, ws.frames);
            evaluateSoftConstraints(model, ws.frames, ws.soft);
            softJointGains(model, ws.soft.Phi_q, ws.Minv, ws.softStiffness, ws.softDamping);
            const double energy1 =
                0.5 * ws.soft.Phi.dot(ws.softStiffness.cwiseProduct(ws.soft.Phi));
            state.dissipatedEnergy += work - (energy1 - d.softEnergy0);
        }
        result.t = state.t;
        result.h = d.h;
        result.impulse = d.impulse;
        result.lambda = d.impulse / d.h;
        if (model.softRows > 0 && d.softImpulse.size() == model.softRows)
            result.softLambda = d.softImpulse / d.h;
        else
            result.softLambda.resize(0);
        result.limitForce.assign(model.limits.size(), 0.0);
        for (std::size_t k = 0; k < d.stops.size(); ++k) {
            const ContactRows& c = d.problem.contacts[d.found.points.size() + k];
            result.limitForce[static_cast<std::size_t>(d.stops[k].limit)] +=
                d.stops[k].sign * c.impulse[0] / d.h;
        }
        if (model.unfolded)
            result.bodyAccelerations = (state.v - d.v0) / d.h;
        else
            result.bodyAccelerations.resize(0);
        result.cableTension.clear();
        if (!d.cables.empty()) {
            result.cableTension.assign(model.forces.size(), {});
            for (const StepData::CableRow& c : d.cables) {
                std::vector<double>& spans = result.cableTension[static_cast<std::size_t>(c.force)];
                if (spans.size() <= static_cast<std::size_t>(c.span))
                    spans.resize(static_cast<std::size_t>(c.span) + 1, 0.0);
                spans[static_cast<std::size_t>(c.span)] =
                    d.problem.contacts[c.contact].impulse[0] / d.h;
            }
        }
        result.frictionForce.assign(model.frictions.size(), 0.0);
        for (const StepData::FrictionRow& fr : d.frictions) {
            if (model.frictions[static_cast<std::size_t>(fr.friction)].ball) {
                // A ball joint's: the size of its torque.
                result.frictionForce[static_cast<std::size_t>(fr.friction)] = ballTorque(fr).norm();
                continue;
            }
            result.frictionForce[static_cast<std::size_t>(fr.friction)] =
                d.problem.contacts[fr.contact].impulse[1] / d.h;
        }
        result.contactSolver.contacts = static_cast<int>(d.found.points.size());
        result.contactSolver.iterations = d.report.iterations;
        result.contactSolver.residual = d.report.residual;
        result.contactSolver.converged = d.report.converged;
        // Each point's impulses kept with it, and a force for each one that acts (an idle
        // speculative contact does not), in the points' order: counted per range, then written
        // (on the threads for many points; the same ranges both times).
        std::vector<contact::ContactPoint>& points = d.found.points;
        const std::size_t count = points.size();
        const std::size_t ranges = workerThreads() < 2 || count < kParallelRows
                                       ? 1
                                       : 4 * static_cast<std::size_t>(workerThreads());
        const auto range = [&](std::size_t r) {
            return std::pair{count * r / ranges, count * (r + 1) / ranges};
        };
        const auto acts = [&](std::size_t ci) {
            return !(d.problem.contacts[ci].impulse[0] <= 0.0 && points[ci].depth < 0.0);
        };
        acting_.assign(ranges + 1, 0);
        runTasks(static_cast<int>(ranges), [&](int r) {
            const auto [first, last] = range(static_cast<std::size_t>(r));
            std::size_t acting = 0;
            for (std::size_t ci = first; ci < last; ++ci) {
                const ContactRows& c = d.problem.contacts[ci];
                contact::ContactPoint& p = points[ci];
                const Vec3& t1Dir = d.tangents[ci];
                const Vec3 t2Dir = p.n_AB_W.cross(t1Dir);
                p.normalImpulse = c.impulse[0];
                p.frictionImpulse_W = c.impulse[1] * t1Dir + c.impulse[2] * t2Dir;
                ContactPointState& kept = d.found.persistent[p.persistent];
                kept.normalImpulse = p.normalImpulse;
                kept.frictionImpulse_W = p.frictionImpulse_W;
                if (acts(ci)) ++acting;
            }
            acting_[static_cast<std::size_t>(r) + 1] = acting;
        });
        for (std::size_t r = 0; r < ranges; ++r) acting_[r + 1] += acting_[r];
        result.contacts.resize(acting_[ranges]);  // (from the last step's size: growth zeroed)
        runTasks(static_cast<int>(ranges), [&](int r) {
            const auto [first, last] = range(static_cast<std::size_t>(r));
            std::size_t at = acting_[static_cast<std::size_t>(r)];
            for (std::size_t ci = first; ci < last; ++ci) {
                if (!acts(ci)) continue;
                const contact::ContactPoint& p = points[ci];
                result.contacts[at++] = {.partA = static_cast<int>(p.partA),
                                         .partB = static_cast<int>(p.partB),
                                         .point_W = 0.5 * (p.p_WA_W + p.p_WB_W),
                                         .normal_W = p.n_AB_W,
                                         .depth = p.depth,
                                         .normalForce = p.normalImpulse / d.h,
                                         .frictionForce_W = p.frictionImpulse_W / d.h};
            }
        });
        // The contacts sleeping parts rest on, with the forces they had when they fell asleep
        // (found again only when which parts sleep has changed).
        if (!d.found.resting.empty()) {
            if (restingEpoch_ != queryEpoch_ || restingForces_.empty()) {
                restingForces_.clear();
                for (const std::size_t k : d.found.resting) {
                    const ContactPointState& c = d.found.persistent[k];
                    if (c.normalImpulse <= 0.0 && c.distance > 0.0) continue;  // idle
                    ContactForce& f = restingForces_.emplace_back();
                    f.partA = c.partA;
                    f.partB = c.partB;
                    f.point_W =
                        0.5 * (world_->worldPoint(static_cast<std::size_t>(c.partA), c.local_A) +
                               world_->worldPoint(static_cast<std::size_t>(c.partB), c.local_B));
                    f.normal_W = c.n_AB_W;
                    f.depth = -c.distance;
                    f.normalForce = c.normalImpulse / d.h;
                    f.frictionForce_W = c.frictionImpulse_W / d.h;
                }
                restingEpoch_ = queryEpoch_;
            }
            result.contacts.insert(result.contacts.end(), restingForces_.begin(),
                                   restingForces_.end());
            result.contactSolver.contacts += static_cast<int>(d.found.resting.size());
        }
        // The merged points become the state's (the two buffers trade places).
        state.contacts.swap(d.found.persistent);
        result.valid = true;
    }

    // The rows of every contact point at qₙ: normal and tangents, targets, friction, warm start.
    // Points between two parts that cannot move are left out (of the points too). With the
    // islands known and PGS to solve them, each island's rows are written by the task that
    // solves it (ContactProblem::writeRows); only the places are made here.
    void contactRows(const Model& model, Workspace& ws) {
        StepData& d = data_;
        const Eigen::VectorXd& q = d.q0;
        std::vector<contact::ContactPoint>& points = d.found.points;
        // Per body, once: orientation as a matrix.
        rotation_.resize(static_cast<std::size_t>(model.bodyCount()));
        runRanges(rotation_.size(), kParallelParts, [&](std::size_t first, std::size_t last) {
            for (std::size_t b = first; b < last; ++b)
                rotation_[b] = bodyOrientation(q, static_cast<int>(b)).toRotationMatrix();
        });
        const ContactSettings& settings = model.contact.settings;
        contact::ContactProblem& problem = d.problem;
        problem.friction = settings.friction;
        problem.coneFacets = settings.coneFacets;
        // (maximal coordinates only: in joint coordinates the rows' responses through the tree are
        // formed from the rows before the solve)
        const bool late = !joints_ && !islandStart_.empty() &&
                          settings.solver == ContactSolverType::ProjectedGaussSeidel &&
                          model.constraintRows() == 0 && model.softRows == 0 &&
                          model.limits.empty() && model.frictions.empty();
        if (late) {
            // (the points between two parts that cannot move: their group, taken out whole)
            problem.islandStart = islandStart_;
            if (immovable_ >= 0) {
                std::vector<std::size_t>& starts = problem.islandStart;
                const auto group = static_cast<std::size_t>(immovable_);
                const std::size_t first = starts[group], last = starts[group + 1];
                points.erase(points.begin() + static_cast<std::ptrdiff_t>(first),
                             points.begin() + static_cast<std::ptrdiff_t>(last));
                starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(group));
                for (std::size_t g = group; g < starts.size(); ++g) starts[g] -= last - first;
                if (starts.size() < 2) starts.clear();
            }
            // (resized from the last step's size: no zeroing but growth)
            problem.contacts.resize(points.size());
            d.tangents.resize(points.size());
            if (problem.islandStart.empty()) {  // (no point left)
                problem.contacts.clear();
                return;
            }
            problem.writeRows = [this, &model, &ws](std::size_t first, std::size_t last) {
                for (std::size_t k = first; k < last; ++k) (void)pointRows(model, ws, k);
            };
            return;
        }
        // Each point's rows in its place (on the engine's threads for many: every point alone),
        // then the points between two parts that cannot move taken out.
        const std::size_t count = points.size();
        problem.contacts.resize(count);
        d.tangents.resize(count);
        kept_.assign(count, 1);
        runRanges(count, kParallelRows, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k)
                if (!pointRows(model, ws, k)) kept_[k] = 0;
        });
        problem.islandStart = islandStart_;  // (the points' groups: orderContacts)
        if (std::find(kept_.begin(), kept_.end(), 0) == kept_.end()) return;
        // The points left out are those of the group of points between two parts that cannot
        // move: the other groups keep their points, their starts moved down; that one is gone.
        std::vector<std::size_t>& starts = problem.islandStart;
        std::size_t keep = 0, island = 0;
        for (std::size_t k = 0; k < count; ++k) {
            for (; island < starts.size() && starts[island] == k; ++island) starts[island] = keep;
            if (!kept_[k]) continue;
            if (keep != k) {
                problem.contacts[keep] = problem.contacts[k];
                d.tangents[keep] = d.tangents[k];
                points[keep] = points[k];
            }
            ++keep;
        }
        for (; island < starts.size(); ++island) starts[island] = keep;
        starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
        if (starts.size() < 2) starts.clear();
        problem.contacts.resize(keep);
        d.tangents.resize(keep);
        points.resize(keep);
    }

    // Point k's rows (d.problem.contacts[k], d.tangents[k]) from the state at the start of the
    // step (rotation_ set); false for a point between two parts that cannot move (no rows).
    bool pointRows(const Model& model, const Workspace& ws, std::size_t k) {
        StepData& d = data_;
        const double h = d.h;
        const Eigen::VectorXd& q = d.q0;
        const Eigen::VectorXd& v = d.v0;
        const std::vector<contact::ContactPoint>& points = d.found.points;
        contact::ContactProblem& problem = d.problem;
        const ContactSettings& settings = model.contact.settings;
        const bool byFrequency = settings.frequency > 0.0;
        const bool soft = settings.stiffness > 0.0 || byFrequency;
        const double omega = 2.0 * kPi * settings.frequency;
        auto pointVelocity = [&](int b, const Vec3& point) -> Vec3 {
            if (b < 0) return Vec3::Zero();
            const Vec3 w = rotation_[static_cast<std::size_t>(b)] * Vec3(layout::angular(v, b));
            return layout::linear(v, b) + w.cross(point - bodyPosition(q, b));
        };
        const contact::ContactPoint& p = points[k];
        ContactRows& c = problem.contacts[k];  // (the fields it sets below, and these)
        c.bound = 0.0;
        c.boxFriction = false;
        c.compliance = 0.0;
        c.bias = 0.0;
        c.bodyA = model.bodyOfPart[p.partA];
        c.bodyB = model.bodyOfPart[p.partB];
        if (c.bodyA < 0 && c.bodyB < 0) {
            return false;
        }
        const Vec3 point = 0.5 * (p.p_WA_W + p.p_WB_W);
        const Vec3 n = p.n_AB_W;
        const Vec3 t1 = tangentOf(n, pointVelocity(c.bodyB, point) - pointVelocity(c.bodyA, point));
        const Vec3 t2 = n.cross(t1);
        const Vec3 directions[3] = {n, t1, t2};
        for (int side = 0; side < 2; ++side) {
            const int body = side == 0 ? c.bodyA : c.bodyB;
            if (body < 0) continue;
            const double sign = side == 0 ? -1.0 : 1.0;
            const Mat3& R = rotation_[static_cast<std::size_t>(body)];
            const Vec3 arm = point - bodyPosition(q, body);
            for (int r = 0; r < 3; ++r)
                c.J[r][side] << sign * directions[r],
                    sign * (R.transpose() * arm.cross(directions[r]));
            c.Minv[side] = layout::twist(ws.Minv, body);
        }
        const ContactMaterial material =
            model.contact.combined(static_cast<int>(p.partA), static_cast<int>(p.partB));
        c.friction = material.friction;

        // The normal row's bound: close a gap at most, push a penetration out.
        const double approach = contact::rowVelocity(c, 0, v);  // before the step; < 0 approaching
        // Soft contact acts from touching on (a part set down exactly on a surface, or
        // within `slop` of it, sinks into it as the spring says); a wider gap closes first.
        if (p.depth > 0.0 || (soft && p.depth > -settings.slop)) {
            if (soft) {
                // k and c given, or from the frequency and damping ratio with the mass the
                // contact's normal row moves: m = 1 / (J M⁻¹ Jᵀ).
                double k = settings.stiffness, damping = settings.damping;
                if (byFrequency) {
                    double inverseMass = 0.0;
                    for (int side = 0; side < 2; ++side)
                        if ((side == 0 ? c.bodyA : c.bodyB) >= 0)
                            inverseMass += c.J[0][side].dot(c.MinvJ(0, side));
                    const double m = 1.0 / inverseMass;
                    k = m * omega * omega;
                    damping = 2.0 * settings.dampingRatio * m * omega;
                }
                c.compliance = 1.0 / (h * (h * k + damping));
                c.target = h * k / (h * k + damping) * p.depth / h;
            } else {
                // (moving the positions only: ContactRows::bias; parts started inside one
                // another come apart at pushSpeed at most: a fifth of a 10 cm overlap a
                // millisecond is 20 m/s, and a hundred boxes in one place flew off at 280 m/s)
                c.target =
                    std::min(settings.stabilization * std::max(0.0, p.depth - settings.slop) / h,
                             settings.pushSpeed);
                c.bias = c.target;
            }
        } else {
            c.target = p.depth / h;  // = −gap / h
        }
        // An impact within this step bounces with restitution e.
        if (material.restitution > 0.0 && approach < -settings.restitutionThreshold &&
            -p.depth <= -approach * h) {
            const double bounce = -material.restitution * approach;
            c.bias = std::max(0.0, c.target - std::max(0.0, bounce));
            c.target = std::max(c.target, bounce);
        }

        // Warm start from the stored impulses of a persistent point.
        c.impulse[0] = p.normalImpulse;
        c.impulse[1] = p.frictionImpulse_W.dot(t1);
        c.impulse[2] = p.frictionImpulse_W.dot(t2);
        d.tangents[k] = t1;
        return true;
    }

    // The rows of the stops within reach of the step: a stop whose gap the coordinate could
    // close at its rate before or after the applied forces, with room to spare; a row that
    // does not touch costs a column, one that is left out cannot act.
    void stopRows(const Model& model, const State& state, const Workspace& ws) {
        StepData& d = data_;
        const double h = d.h;
        const ContactSettings& settings = model.contact.settings;
        for (int l = 0; l < static_cast<int>(model.limits.size()); ++l) {
            const LimitModel& limit = model.limits[static_cast<std::size_t>(l)];
            const ConstraintRow c =
                jointCoordinate(model, ws.frames, limit.joint, limit.coordinate);
            double value = c.value;
            if (limit.axis == JointAxis::Rotation && state.jointCoordinates.size() > limit.slot)
                value = unwindAngle(value, state.jointCoordinates(limit.slot));
            const JointModel& joint = model.joints[static_cast<std::size_t>(limit.joint)];
            const int bodyI = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bodyJ = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            double freeRate = 0.0;
            if (bodyI >= 0) freeRate += c.Ji.dot(layout::twist(d.vFree, bodyI));
            if (bodyJ >= 0) freeRate += c.Jj.dot(layout::twist(d.vFree, bodyJ));
            const double reach =
                2.0 * h * std::max(std::abs(c.rate), std::abs(freeRate)) +
                (limit.axis == JointAxis::Rotation ? kStopReachAngle : kStopReachLength);
            for (const double sign : {1.0, -1.0}) {
                const double end = sign > 0.0 ? limit.lower : limit.upper;
                if (!std::isfinite(end)) continue;
                const double gap = sign * (value - end);
                if (gap > reach) continue;
                ContactRows row;
                row.bodyA = bodyI;
                row.bodyB = bodyJ;
                for (int side = 0; side < 2; ++side) {
                    for (int r = 0; r < 3; ++r) row.J[r][side] = Vec6::Zero();
                    row.Minv[side] = Vec6::Zero();
                }
                if (bodyI >= 0) {
                    row.J[0][0] = sign * c.Ji.transpose();
                    row.Minv[0] = layout::twist(ws.Minv, bodyI);
                }
                if (bodyJ >= 0) {
                    row.J[0][1] = sign * c.Jj.transpose();
                    row.Minv[1] = layout::twist(ws.Minv, bodyJ);
                }
                const double approach = sign * c.rate;  // < 0 approaching
                // Close a gap at most; push a penetration (projection's round-off) out as
                // contact does. A compliant stop's bound is set with its effective mass, once
                // the responses are known (softenStops).
                row.target = gap > 0.0 ? -gap / h : settings.stabilization * -gap / h;
                row.bias = std::max(0.0, row.target);  // (moving the coordinate only)
                if (limit.restitution > 0.0 && approach < -settings.restitutionThreshold &&
                    gap <= -approach * h) {
                    const double bounce = -limit.restitution * approach;
                    row.bias = std::max(0.0, row.target - std::max(0.0, bounce));
                    row.target = std::max(row.target, bounce);
                }
                d.problem.contacts.push_back(row);
                d.stops.push_back({l, sign, gap, approach});
            }
        }
    }

    // Joint friction's rows: a row on the coordinate (its first tangent) bounded by
    // h (μ × the reaction term + preload), its normal row empty; the reaction term starts from
    // the last step's and is settled in solve(). A coordinate at rest at tₙ takes the static
    // coefficient.
    void frictionRows(const Model& model, const Workspace& ws) {
        StepData& d = data_;
        if (lastReaction_.size() != model.frictions.size() || frictionSerial_ != model.serial) {
            lastReaction_.assign(model.frictions.size(), 0.0);
            frictionSerial_ = model.serial;
        }
        for (int k = 0; k < static_cast<int>(model.frictions.size()); ++k) {
            const JointFrictionModel& f = model.frictions[static_cast<std::size_t>(k)];
            if (!f.coulomb()) continue;
            if (f.ball) {
                ballFrictionRows(model, ws, k);
                continue;
            }
            const ConstraintRow c = jointCoordinate(model, ws.frames, f.joint, f.coordinate);
            const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
            ContactRows row;
            row.bodyA = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            row.bodyB = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            for (int side = 0; side < 2; ++side) {
                for (int r = 0; r < 3; ++r) row.J[r][side] = Vec6::Zero();
                row.Minv[side] = Vec6::Zero();
            }
            if (row.bodyA >= 0) {
                row.J[1][0] = c.Ji.transpose();
                row.Minv[0] = layout::twist(ws.Minv, row.bodyA);
            }
            if (row.bodyB >= 0) {
                row.J[1][1] = c.Jj.transpose();
                row.Minv[1] = layout::twist(ws.Minv, row.bodyB);
            }
            row.target = -1.0;  // (no normal row: its impulse stays 0)
            row.boxFriction = true;
            StepData::FrictionRow fr;
            fr.friction = k;
            fr.contact = d.problem.contacts.size();
            fr.coefficient =
                std::abs(c.rate) <= kStictionSpeed ? f.staticCoefficient : f.coefficient;
            fr.reaction = lastReaction_[static_cast<std::size_t>(k)];
            row.bound = d.h * (fr.coefficient * fr.reaction + f.preload);
            d.problem.contacts.push_back(row);
            d.frictions.push_back(fr);
        }
    }

    // A ball joint's friction: a torque against the relative turn ω = ω_I − ω_J, |T| ≤ μ r |F| +
    // preload. Turning (|ω| above the stiction speed at tₙ): one row along ω, so the torque is
    // all along the slip, as Coulomb's law has it. At rest: three rows, the first along the
    // turn the step would start without friction (aimBallRows(), once the joints are met) and
    // two across it, each bounded alone: the joint sticks, exactly, under any torque up to the
    // bound (a little more where the parts' inertia turns the start across its torque).
    void ballFrictionRows(const Model& model, const Workspace& ws, int k) {
        StepData& d = data_;
        const JointFrictionModel& f = model.frictions[static_cast<std::size_t>(k)];
        const Vec3 w = relativeAngularVelocity(model, ws.frames, f.joint);
        const bool turning = w.norm() > kStictionSpeed;
        ContactRows empty;
        const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
        empty.bodyA = model.markers[static_cast<std::size_t>(joint.markerI)].body;
        empty.bodyB = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
        for (int side = 0; side < 2; ++side) {
            for (int r = 0; r < 3; ++r) empty.J[r][side] = Vec6::Zero();
            empty.Minv[side] = Vec6::Zero();
        }
        empty.target = -1.0;  // (no normal row: its impulse stays 0)
        empty.boxFriction = true;
        StepData::FrictionRow fr;
        fr.friction = k;
        fr.contact = d.problem.contacts.size();
        fr.coefficient = turning ? f.coefficient : f.staticCoefficient;
        fr.reaction = lastReaction_[static_cast<std::size_t>(k)];
        empty.bound = d.h * (fr.coefficient * fr.reaction + f.preload);
        d.problem.contacts.push_back(empty);
        if (!turning) {
            d.problem.contacts.push_back(empty);
            fr.extra = 1;
        }
        ballDirections_.resize(model.frictions.size());
        aimBallRows(model, ws, fr, turning ? Vec3(w.normalized()) : Vec3::UnitZ());
        d.frictions.push_back(fr);
    }

    // A ball joint's friction rows along e1 (and, at rest, across it).
    void aimBallRows(const Model& model, const Workspace& ws, const StepData::FrictionRow& fr,
                     const Vec3& e1) {
        StepData& d = data_;
        const Vec3 e2 = e1.unitOrthogonal(), e3 = e1.cross(e2);
        ballDirections_[static_cast<std::size_t>(fr.friction)] = {e1, e2, e3};
        // The row of direction e: (ω_I − ω_J)·e.
        auto direction = [&](ContactRows& row, int r, const Vec3& e) {
            for (int side = 0; side < 2; ++side) {
                const int b = side == 0 ? row.bodyA : row.bodyB;
                if (b < 0) continue;
                row.J[r][side].head<3>().setZero();
                row.J[r][side].tail<3>() =
                    (side == 0 ? 1.0 : -1.0) *
                    (ws.frames[static_cast<std::size_t>(b)].R.transpose() * e);
                row.Minv[side] = layout::twist(ws.Minv, b);
            }
        };
        (void)model;
        ContactRows& first = d.problem.contacts[fr.contact];
        direction(first, 1, e1);
        if (fr.extra > 0) {
            direction(first, 2, e2);
            direction(d.problem.contacts[fr.contact + 1], 1, e3);
        }
    }

    // The ball joints at rest aimed along the relative turn of `v` (the step's start with the
    // joints met and no friction), where it turns.
    void aimBallRowsAtRest(const Model& model, const Workspace& ws, const Eigen::VectorXd& v) {
        for (const StepData::FrictionRow& fr : data_.frictions) {
            const JointFrictionModel& f = model.frictions[static_cast<std::size_t>(fr.friction)];
            if (!f.ball || fr.extra == 0) continue;
            const ContactRows& c = data_.problem.contacts[fr.contact];
            Vec3 w = Vec3::Zero();
            for (int side = 0; side < 2; ++side) {
                const int b = side == 0 ? c.bodyA : c.bodyB;
                if (b < 0) continue;
                w += (side == 0 ? 1.0 : -1.0) *
                     (ws.frames[static_cast<std::size_t>(b)].R * Vec3(layout::angular(v, b)));
            }
            if (w.norm() > 0.0) aimBallRows(model, ws, fr, w.normalized());
        }
    }

    // A ball joint's friction torque on part I from its rows' impulses (world axes) [N·m].
    Vec3 ballTorque(const StepData::FrictionRow& fr) const {
        const StepData& d = data_;
        const auto& e = ballDirections_[static_cast<std::size_t>(fr.friction)];
        const ContactRows& first = d.problem.contacts[fr.contact];
        Vec3 impulse = first.impulse[1] * e[0];
        if (fr.extra > 0)
            impulse +=
                first.impulse[2] * e[1] + d.problem.contacts[fr.contact + 1].impulse[1] * e[2];
        return impulse / d.h;
    }

    // The reaction terms of the joints with friction from the joint impulses just found, and
    // the friction rows' bounds from them. Whether any bound moved (another round is needed).
    bool updateFrictionBounds(const Model& model, const Workspace& ws) {
        StepData& d = data_;
        bool moved = false;
        for (StepData::FrictionRow& fr : d.frictions) {
            const JointFrictionModel& f = model.frictions[static_cast<std::size_t>(fr.friction)];
            moved = setFrictionBound(fr, f, frictionReaction(model, ws, f)) || moved;
        }
        return moved;
    }

    // A friction row's reaction term and its bound from it; whether it moved.
    bool setFrictionBound(StepData::FrictionRow& fr, const JointFrictionModel& f, double reaction) {
        StepData& d = data_;
        lastReaction_[static_cast<std::size_t>(fr.friction)] = reaction;
        const bool moved =
            std::abs(reaction - fr.reaction) > 1e-12 * std::max(1.0, std::abs(reaction));
        fr.reaction = reaction;
        d.problem.contacts[fr.contact].bound = d.h * (fr.coefficient * reaction + f.preload);
        if (fr.extra > 0)
            d.problem.contacts[fr.contact + 1].bound = d.problem.contacts[fr.contact].bound;
        return moved;
    }

    // updateFrictionBounds in joint coordinates: each joint's reaction over the step (its link's
    // transmitted force with the step's accelerations (q̇* + Z x − q̇ₙ)/h and the contact forces,
    // at the step's start), its components across the axis in marker J's axes giving the lever
    // term. Only those whose coefficient is not zero need it.
    Status updateFrictionBoundsInJointCoordinates(const Model& model, const State& state,
                                                  Workspace& ws, bool& moved) {
        StepData& d = data_;
        const JointTree& tree = *tree_;
        bool needed = false;
        for (const StepData::FrictionRow& fr : d.frictions) needed = needed || fr.coefficient > 0.0;
        if (!needed) return {};
        stepAccelerations_ = (qdPlus_ + dqd_ - qd_) / d.h;
        for (int e = 0; e < tree.nv; ++e)  // (a prescribed rate's: as given, not its mean's)
            if (tree.prescribed(model, e)) stepAccelerations_(e) = qdd_(e);
        // The contact forces on the parts (stops and friction act within their joints).
        external_.assign(model.bodies.size(), contact::Vec6::Zero());
        for (std::size_t ci = 0; ci < d.found.points.size(); ++ci) {
            const ContactRows& c = d.problem.contacts[ci];
            for (int side = 0; side < 2; ++side) {
                const int b = side == 0 ? c.bodyA : c.bodyB;
                if (b < 0) continue;
                const BodyFrame& frame = ws.frames[static_cast<std::size_t>(b)];
                for (int r = 0; r < 3; ++r) {
                    const contact::Vec6& e = c.J[r][side];
                    contact::Vec6 f;
                    f.head<3>() = frame.r.cross(Vec3(e.head<3>())) + frame.R * e.tail<3>();
                    f.tail<3>() = e.head<3>();
                    external_[static_cast<std::size_t>(b)] += f * (c.impulse[r] / d.h);
                }
            }
        }
        if (tree.closed()) {
            stepLoops_ = loopMultipliers_;
            stepLoops_.noalias() += responses_.loopImpulses * x_ / d.h;
        } else {
            stepLoops_.resize(0);
        }
        if (Status s =
                jointSpaceTransmittedOverStep(model, tree, state, ws, stepAccelerations_, external_,
                                              stepLoops_, rates_, transmitted_, alongAxis_);
            !s.ok)
            return s;
        for (StepData::FrictionRow& fr : d.frictions) {
            const JointFrictionModel& f = model.frictions[static_cast<std::size_t>(fr.friction)];
            const int link = linkOfJoint(tree, f.joint);
            if (link < 0) continue;  // (a cut joint's friction: refused by buildJointTree)
            // The force and the torque about marker I's origin the joint passes to its link, in
            // marker J's axes (their size across the axis: the sign of either part is moot).
            const contact::Vec6& onChild = transmitted_[static_cast<std::size_t>(link)];
            const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
            const MarkerFrame I = markerFrame(model, ws.frames, joint.markerI);
            const MarkerFrame J = markerFrame(model, ws.frames, joint.markerJ);
            const Vec3 F = onChild.tail<3>();
            const Vec3 force_J = J.R.transpose() * F;
            const Vec3 torque_J = J.R.transpose() * (Vec3(onChild.head<3>()) - I.p.cross(F));
            moved = setFrictionBound(fr, f, leverTerm(f, force_J, torque_J)) || moved;
        }
        return {};
    }

    static int linkOfJoint(const JointTree& tree, int joint) {
        for (int k = 0; k < tree.size(); ++k)
            if (tree.links[static_cast<std::size_t>(k)].joint == joint) return k;
        return -1;
    }

    // The lever term of a joint coordinate's friction from the joint's rows' impulses: on an
    // angle r |F⊥|, on a slide |F⊥| + |T⊥| / length (F, T the reaction on part I at marker
    // I's origin in marker J's axes; ⊥: across J's z axis).
    // With the last step's projection impulses: the share of the joints' reactions that turns
    // the step's velocity onto the joints (a part turning or sliding on a turning part: its
    // centripetal and Coriolis loads), which the step's own impulses at qₙ do not hold.
    double frictionReaction(const Model& model, const Workspace& ws, const JointFrictionModel& f) {
        StepData& d = data_;
        Vec3 force_J, torque_J;
        reactionImpulse_ = d.impulse;
        if (projectionImpulse_.size() == reactionImpulse_.size())
            reactionImpulse_ += projectionImpulse_;
        jointRowsReaction(model, ws.frames, d.J0, reactionImpulse_ / d.h, f.joint, force_J,
                          torque_J);
        return leverTerm(f, force_J, torque_J);
    }

    // The lever term from a joint's reaction in marker J's axes (F, and T about marker I's
    // origin; their sizes across the axis).
    static double leverTerm(const JointFrictionModel& f, const Vec3& force_J,
                            const Vec3& torque_J) {
        if (f.ball) return f.radius * force_J.norm();  // the ball carries it all
        const double across = std::hypot(force_J.x(), force_J.y());
        if (f.axis == JointAxis::Rotation) return f.radius * across;
        const double bending = std::hypot(torque_J.x(), torque_J.y());
        return across + (f.length > 0.0 ? bending / f.length : 0.0);
    }

    // A compliant stop in touch (gap ≤ 0) gives as a spring k = m ω² and damper c = 2 ζ m ω on
    // the mass its row moves through the joints, m = 1 / (J u), stepped implicitly as soft
    // contact is (contact_solver.h: compliance σ and target).
    void softenStops(const Model& model) {
        StepData& d = data_;
        const double h = d.h;
        contact::ContactProblem& problem = d.problem;
        for (std::size_t k = 0; k < d.stops.size(); ++k) {
            const StepData::StopRow& stop = d.stops[k];
            const LimitModel& limit = model.limits[static_cast<std::size_t>(stop.limit)];
            if (limit.frequency <= 0.0 || stop.gap > 0.0) continue;
            const std::size_t ci = d.found.points.size() + k;
            ContactRows& c = problem.contacts[ci];
            double inverseMass = 0.0;
            for (int side = 0; side < 2; ++side) {
                const int body = side == 0 ? c.bodyA : c.bodyB;
                if (body < 0) continue;
                inverseMass += !problem.U.empty() ? c.J[0][side].dot(problem.U.at(3 * ci, body))
                                                  : c.J[0][side].dot(c.MinvJ(0, side));
            }
            if (inverseMass <= 0.0) continue;  // the joints hold it: nothing to soften
            const double m = 1.0 / inverseMass, omega = 2.0 * kPi * limit.frequency;
            const double stiffness = m * omega * omega;
            const double damping = 2.0 * limit.dampingRatio * m * omega;
            c.compliance = 1.0 / (h * (h * stiffness + damping));
            c.target = h * stiffness / (h * stiffness + damping) * -stop.gap / h;
            c.bias = 0.0;  // (a spring: nothing to split off)
            const double threshold = model.contact.settings.restitutionThreshold;
            if (limit.restitution > 0.0 && stop.approach < -threshold)
                c.target = std::max(c.target, -limit.restitution * stop.approach);
        }
    }

    // Contact responses projected onto the joint constraints: u = w − M⁻¹Φqᵀ S⁻¹ Φq w with
    // w = M⁻¹Jᵀ (a contact impulse moves jointed bodies together).
    void projectResponses(const Model& model, KktSolver& kkt, const SparseRowMatrix& J) {
        contact::ContactProblem& problem = data_.problem;
        const Eigen::Index nv = model.velocitySize();
        problem.U.clear();
        // The bodies the joint rows hold: a row on others alone (a free part in a pile beside a
        // mechanism) has Φq w = 0, nothing to project, u = w. And per body, the joint rows on it:
        // Φq w for a contact row's w (nonzero on its two bodies only) is nonzero on those rows
        // alone, each the same sum over its entries as the whole product makes (a chain of 32
        // links: ~12 of 93 rows; the whole product per column was a fifth of the step).
        const std::size_t bodies = static_cast<std::size_t>(nv / 6);
        jointed_.assign(bodies, 0);
        if (rowsOnBody_.size() < bodies) rowsOnBody_.resize(bodies);
        for (std::size_t b = 0; b < bodies; ++b) rowsOnBody_[b].clear();
        for (Eigen::Index k = 0; k < J.outerSize(); ++k) {
            std::size_t last = bodies;  // (a row's entries on a body are consecutive)
            for (SparseRowMatrix::InnerIterator it(J, k); it; ++it) {
                const auto b = static_cast<std::size_t>(it.col() / 6);
                jointed_[b] = 1;
                if (b != last) rowsOnBody_[b].push_back(static_cast<int>(k));
                last = b;
            }
        }
        const auto held = [&](int body) {
            return body >= 0 && jointed_[static_cast<std::size_t>(body)];
        };
        Eigen::VectorXd& w = vc_;
        w.resize(nv);
        Eigen::VectorXd& phiW = jointProducts_;
        phiW.setZero(J.rows());
        rowTouched_.assign(static_cast<std::size_t>(J.rows()), 0);
        for (std::size_t ci = 0; ci < problem.contacts.size(); ++ci) {
            const ContactRows& c = problem.contacts[ci];
            for (int r = 0; r < 3; ++r) {
                problem.U.beginColumn();
                // (an empty row, or a frictionless row's tangents: their impulses stay 0, their
                // responses are not needed)
                if ((r > 0 && c.friction == 0.0 && !c.boxFriction) ||
                    (c.J[r][0].isZero(0.0) && c.J[r][1].isZero(0.0)))
                    continue;
                if (!held(c.bodyA) && !held(c.bodyB)) {
                    // (its parts, in increasing order; both sides on one body: their sum)
                    const int lo = std::min(c.bodyA, c.bodyB), hi = std::max(c.bodyA, c.bodyB);
                    const Vec6 onLo = lo == c.bodyA ? c.MinvJ(r, 0) : c.MinvJ(r, 1);
                    const Vec6 onHi = hi == c.bodyA ? c.MinvJ(r, 0) : c.MinvJ(r, 1);
                    if (hi < 0) continue;
                    if (lo == hi)
                        problem.U.add(lo, c.MinvJ(r, 0) + c.MinvJ(r, 1));
                    else {
                        if (lo >= 0) problem.U.add(lo, onLo);
                        problem.U.add(hi, onHi);
                    }
                    continue;
                }
                w.setZero();
                if (c.bodyA >= 0) layout::twist(w, c.bodyA) += c.MinvJ(r, 0);
                if (c.bodyB >= 0) layout::twist(w, c.bodyB) += c.MinvJ(r, 1);
                // Φq w on the joint rows of the two bodies (the others' are 0), each row's sum
                // over its entries in order as J * w makes it.
                touched_.clear();
                for (const int body : {c.bodyA, c.bodyB}) {
                    if (body < 0) continue;
                    for (const int k : rowsOnBody_[static_cast<std::size_t>(body)]) {
                        if (rowTouched_[static_cast<std::size_t>(k)]) continue;
                        rowTouched_[static_cast<std::size_t>(k)] = 1;
                        touched_.push_back(k);
                        double sum = 0.0;
                        for (SparseRowMatrix::InnerIterator it(J, k); it; ++it)
                            sum += it.value() * w(it.col());
                        phiW(k) = sum;
                    }
                }
                kkt.project(phiW, dv_);
                for (const int k : touched_) {
                    phiW(k) = 0.0;
                    rowTouched_[static_cast<std::size_t>(k)] = 0;
                }
                w += dv_;
                for (int b = 0; b < nv / 6; ++b)
                    if (const auto t = layout::twist(w, b); !t.isZero(0.0)) problem.U.add(b, t);
            }
        }
    }

    StepData data_;
    std::vector<char> jointed_;  // per body: the joint rows hold it (projectResponses)
    // projectResponses: per body, the joint rows on it; Φq w for one contact row, the rows it
    // touched (and a mark per row).
    std::vector<std::vector<int>> rowsOnBody_;
    Eigen::VectorXd jointProducts_;
    std::vector<int> touched_;
    std::vector<char> rowTouched_;
    // Joint coordinates (the recursive formulation) over tree_: the coordinates, the rates at
    // the step's start and, through it, v* and v⁺; the rows' responses.
    bool joints_ = false;
    detail::TreeHolder tree_;
    Eigen::VectorXd q_, qd_, qdd_, qdPlus_, dqd_, Mdqd_, x_, loopMultipliers_;
    Eigen::VectorXd softRate_, softHeld_;  // joint coordinates' soft joints (jointSpaceSoftStep)
    Eigen::MatrixXd softMass_;
    // Joint friction on the reaction in joint coordinates (its fixed point's rounds).
    Eigen::VectorXd stepAccelerations_, stepLoops_, rates_, alongAxis_;
    std::vector<contact::Vec6> external_, transmitted_;
    State free_;
    std::vector<BodyRow> bodyRows_;
    ImpulseResponses responses_;
    KktSolver softSolver_;  // joint and soft rows together (models with soft joints)
    std::uint64_t softSerial_ = 0;
    std::vector<double> lastReaction_;  // per joint friction: the last step's reaction term
    std::vector<std::array<Vec3, 3>> ballDirections_;  // per joint friction: its rows' axes
    std::uint64_t frictionSerial_ = 0;
    std::unique_ptr<contact::CollisionWorld> world_;
    std::uint64_t worldSerial_ = 0;
    // Sleeping: per body whether it may and its bounding radius (for model sleepSerial_); q
    // as the last step left it (the collision world holds those poses); union–find and
    // per-island scratch; the contacts sleeping parts rest on, as outputs (rebuilt when
    // sleepEpoch_, counting what changed which parts sleep, moves on).
    std::vector<char> sleepable_, wake_;
    std::vector<double> radius_, shortestRest_;
    std::uint64_t sleepSerial_ = 0;
    Eigen::VectorXd lastQ_;
    std::vector<int> sleepParent_;
    std::uint64_t sleepEpoch_ = 1, queryEpoch_ = 0, restingEpoch_ = 0;
    std::vector<ContactForce> restingForces_;
    // holdSleeping: per body, asleep at the step's start (still_), its frames the last step's
    // (framesHeld_), asleep at rest at the last step's start (stillBefore_: its frames formed
    // then at this pose); the state as the last step left it (stateHeld_, collide), the
    // workspace and model the last step's.
    std::vector<char> still_, framesHeld_, stillBefore_;
    bool stateHeld_ = false;
    const Workspace* framesOf_ = nullptr;
    std::uint64_t stillSerial_ = 0;
    // Scratch of the stages.
    std::vector<Mat3> rotation_;       // per body: R_WB at the start of the step
    std::vector<char> kept_;           // per contact point: whether it has rows (contactRows)
    std::vector<std::size_t> acting_;  // record: the forces acting before each range of points
    std::vector<double> blockSums_;    // sumInBlocks
    std::vector<double> heights_;      // per contact point: −(p_A + p_B)·up, lowest last
    std::vector<std::size_t> order_;
    OnThreadsOrNot collideSerially_;        // begin()
    OnThreadsOrNot orderSerially_;          // begin()
    std::vector<std::size_t> islandStart_;  // orderContacts: the points' islands, or none
    int immovable_ = -1;  // orderContacts: the island of the points no part moves in, or −1
    OnThreadsOrNot rowsSerially_;                          // unilateralRows()
    std::vector<int> groupRoot_, groupRank_, pointGroup_;  // orderByIslandAndHeight
    struct PointBodies {
        int a, b;  // the bodies of the point's parts A and B (kGround: none)
    };
    std::vector<PointBodies> pointBodies_;  // per contact point (orderContacts)
    std::vector<std::size_t> rangeStart_;   // orderContacts: where each range's points start
    std::vector<const contact::ContactPoint*> pointAt_;  // orderContacts: each point in its range
    std::vector<std::size_t> groupStart_, grouped_;
    RadixOrderScratch orderScratch_;
    std::vector<contact::ContactPoint> sorted_;
    std::vector<MotionLevel> level_;
    detail::StepStart start_;
    Eigen::VectorXd dv_, vc_, mean_, impulseAll_, projectionImpulse_, reactionImpulse_;
    Eigen::VectorXd vJoints_;  // solve(): the velocity that meets the joints, for friction rounds
};

}  // namespace

std::unique_ptr<Integrator> detail::makeTimeStepping(double stepSize, bool joints) {
    return std::make_unique<TimeStepping>(stepSize, joints);
}

}  // namespace engine
