#pragma once
// Helpers shared by the integrators (not part of the engine's interface).

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/kinematics/retract.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {
class Integrator;
}

namespace engine::detail {

// Whether any driver prescribes an acceleration (its step target needs γ at the step start).
inline bool hasAccelerationDrivers(const Model& model) {
    return std::any_of(model.drivers.begin(), model.drivers.end(),
                       [](const DriverModel& d) { return d.level == MotionLevel::Acceleration; });
}

using engine::normaliseQuaternions;
using engine::retract;
using engine::rotateBody;

// `to` = `from`, in blocks on the engine's threads for a long vector (a step's copies of the
// whole state at thousands of bodies: made on the calling thread alone, they left the engine's
// other threads waiting).
void copyOnThreads(Eigen::VectorXd& to, const Eigen::VectorXd& from);

// `joints`: in joint coordinates (the recursive formulation, joint_space.h), else maximal.
std::unique_ptr<engine::Integrator> makeSymplecticEuler(double stepSize, bool joints);
std::unique_ptr<engine::Integrator> makeRungeKutta4(double stepSize, bool joints);
std::unique_ptr<engine::Integrator> makeDormandPrince45(double maxStep, double relativeTolerance,
                                                        double absoluteTolerance, bool joints);
std::unique_ptr<engine::Integrator> makeImplicitEuler(double stepSize);
std::unique_ptr<engine::Integrator> makeTrapezoidal(double stepSize);
std::unique_ptr<engine::Integrator> makeTimeStepping(double stepSize, bool joints);

}  // namespace engine::detail

#include "engine/dynamics/joint_space.h"
#include "engine/dynamics/reactions.h"
#include "engine/integrators/integrator.h"
#include "engine/model/layout.h"

namespace engine::detail {

// The joint tree a method in joint coordinates steps over: built from the state it first steps
// from, and again for another model (a sensor's switch) or after reset(). Its prismatic turns
// are exact (joint_space.h), so the tree is the same from any state of a run.
class TreeHolder {
public:
    Status build(const Model& model, const State& state) {
        if (tree_ && model_ == &model) return {};
        std::string why;
        tree_ = buildJointTree(model, state, why);
        if (!tree_)
            return Status::failure("the recursive formulation cannot step this mechanism: " + why);
        model_ = &model;
        return {};
    }
    void reset() { tree_.reset(); }
    const JointTree& operator*() const { return *tree_; }
    const JointTree* operator->() const { return &*tree_; }

private:
    std::optional<JointTree> tree_;
    const Model* model_ = nullptr;
};

// The end of a step of size h from q0 with velocity v: q = q0 ⊕ h v (unit quaternions), and
// the body poses there (frames' R and r; their v and w are NaN: v is an iterate of the step,
// not its end velocity, so the frames serve the constraints' residuals and Φq, not their rates).
void stepPositions(const Model& model, double h, const Eigen::VectorXd& q0,
                   const Eigen::VectorXd& v, Eigen::VectorXd& q, std::vector<BodyFrame>& frames);

// Residuals, in velocity units, of every constraint row at the end of a step of size h that
// starts at q0 with velocity v: position rows Φ(q0 ⊕ h v, t1) / h, velocity rows J0 v − ν(t1),
// acceleration rows J0 v − accelerationTarget. The end positions are left in `q`. Returns the
// largest residual in position units (h |r|).
double stepResiduals(const Model& model, double h, double t1, const Eigen::VectorXd& q0,
                     const Eigen::VectorXd& v, const SparseRowMatrix& J0,
                     const std::vector<MotionLevel>& level,
                     const Eigen::VectorXd& accelerationTarget, Workspace& ws, Eigen::VectorXd& q,
                     Eigen::VectorXd& residual);

// The start of a velocity-level step of size h at (tₙ, qₙ, vₙ) = state, shared by the
// steppers: applied forces g(qₙ, vₙ) (soft joints among them when `softJointForces`), Φq(qₙ)
// factored (usually left by the last projection, which ended at qₙ; γ when acceleration rows
// need it), the free velocity v* = vₙ + h M⁻¹ g and the acceleration rows' targets
// Φq vₙ + h γ. The dampers' and controllers' powers at the start come with it.
struct StepStart {
    Eigen::VectorXd vFree;               // v*
    Eigen::VectorXd accelerationTarget;  // per row (acceleration rows only; else empty)
    double dampingPower = 0.0, actuatorPower = 0.0;
};
// Bodies a stepper holds still through its step (sleeping parts, per body): `still`, those
// asleep at its start, keep their velocity as their free velocity (v* = vₙ: no gravity taken,
// the stepper leaves them where they are); `framesHeld`, those of them asleep through the last
// step too, have their frames in ws.frames already (evaluateAppliedForces). Null: none.
struct HeldBodies {
    const std::vector<char>* still = nullptr;
    const std::vector<char>* framesHeld = nullptr;
};
Status beginStep(const Model& model, const State& state, Workspace& ws, double h,
                 bool softJointForces, StepStart& out, const HeldBodies& held = {});

// Work of the drivers' constraint impulses over a step: a driver row's impulse μ acts as
// −Φq_dᵀ μ and does work −μ ċ.
void addDriverWork(const Model& model, const SparseRowMatrix& J0, const Eigen::VectorXd& impulse,
                   const Eigen::VectorXd& v, State& state);

// A position-level motion of the model whose expression jumps between t0 and t1: a failure
// naming it (integrator.cpp), else ok.
Status checkMotionJumps(const Model& model, double t0, double t1);

// A force element (applied force or torque, controller target) whose expression stops being a
// number within `span` of `t`, named with the first time it is not and its value; or one that
// races off there (a pole: beyond `growth` times its size 10 ms before `t`, and `growth`). ""
// when none: what a failed step is then put down to, rather than the joint or the motion that
// gave way. An adaptive step that shrank to nothing looks 10 ms ahead for a growth of 10⁶; a
// fixed step that failed in every subdivision looks over itself and 10 ms beyond for 10³.
std::string forceExpressionCause(const Model& model, double t, double span = 1e-2,
                                 double growth = 1e6);

// Fixed-step methods: steps of the set size h, the last one shortened to land on tEnd.
//
// A step is taken as n = 2, 4, … equal substeps when a body would otherwise turn by more than
// kMaxTurn in it (|ω| h > kMaxTurn: the exponential map and the frozen Jacobian of the
// constraint impulses stop describing such a step), and a step that fails (its impulses, its
// Newton iterations or its projection do not converge) is retried from its start in twice as
// many substeps, down to h / kMaxSubsteps, before the failure is reported. Both decisions
// depend on the state at the step's start only, so runs stay deterministic and a re-run from a
// recorded frame reproduces the original. Where no body turns fast nothing changes.
class FixedStepIntegrator : public Integrator {
public:
    static constexpr double kMaxTurn = 0.1;  // rad per (sub)step
    static constexpr int kMaxSubsteps = 1024;

    explicit FixedStepIntegrator(double stepSize) : stepSize_(stepSize) {}
    Status advance(const Model& model, State& state, Workspace& ws, double tEnd) final {
        while (state.t < tEnd - 1e-12 * std::max(1.0, std::abs(tEnd))) {
            // Steps end on the grid k·h, whatever the output times are (a whole number of
            // steps apart), so writing outputs more or less often changes nothing.
            const double k = std::round(state.t / stepSize_);
            const bool onGrid = std::abs(state.t - k * stepSize_) <= 1e-9 * stepSize_;
            double t1 = onGrid ? (k + 1.0) * stepSize_ : state.t + stepSize_;
            if (t1 >= tEnd - 1e-12 * std::max(1.0, std::abs(tEnd))) t1 = tEnd;
            const double h = t1 - state.t;
            if (model.hasWorkingRows()) {
                if (Status s = checkMotionJumps(model, state.t, t1); !s.ok) {
                    settle(model, state, ws);
                    return s;
                }
            }
            int n = substepsFor(model, state, h);
            State& start = start_;  // kept between steps: its vectors are reused
            keepStart(state, n);
            for (;;) {
                Status s;
                for (int k = 1; k <= n && s.ok; ++k) {
                    const double tk = k == n ? t1 : start.t + h * k / n;
                    endsAdvance_ = k == n && t1 == tEnd;
                    s = step(model, state, ws, tk - state.t);
                }
                if (s.ok) break;
                restoreStart(state);
                retried_ = true;
                if (n >= kMaxSubsteps) {
                    settle(model, state, ws);
                    // A force with a pole or a value that is not a number just ahead is what
                    // broke the step, not the joint or the part the failure names.
                    if (std::string cause =
                            forceExpressionCause(model, start.t, t1 - start.t + 1e-2, 1e3);
                        !cause.empty() && !s.expressionCause) {
                        s.message = cause + " (" + s.message + ")";
                        s.expressionCause = true;
                    }
                    return s;
                }
                n *= 2;
                ++stats_.retried;
                keepStart(state, n);
            }
            ++stats_.steps;
            stats_.subdivided += n > 1;
            // What expressions read of the previous step: the solve where this one ended.
            if (model.laggedCount > 0) {
                if (Status s = updateLagged(model, state, ws, &ws.step); !s.ok) {
                    settle(model, state, ws);
                    return s;
                }
            }
            if (Status s = watchHold(model, start.t, state, ws); !s.ok) {
                settle(model, state, ws);
                return s;
            }
        }
        state.t = tEnd;
        settle(model, state, ws);
        return {};
    }

protected:
    // One step of size h from state.t, including the projection at its end. A step that fails
    // leaves state.contacts as it found them (a contact stepper makes its merged points the
    // state's as its last act): the step's start keeps its own copy of them only for substeps.
    virtual Status step(const Model& model, State& state, Workspace& ws, double h) = 0;
    // Where advance() stops: whatever the steps left to bring up to date (the joint
    // coordinates a method refreshes only now and then). The step that ends an advance() is
    // told so (endsAdvance_), to bring them up to date itself where that is cheaper.
    virtual void settle(const Model&, State&, Workspace&) {}
    bool endsAdvance_ = false;
    bool retried_ = false;  // the state went back to the step's start (what it kept may lag)

private:
    // Stops a run held at a singular position, whose reactions the joint tolerance sets
    // (integrator.cpp): watched after every step from the solver's last factorisation (that of
    // the step's end), confirmed now and then by finding the reactions again with the joints
    // met more closely.
    Status watchHold(const Model& model, double stepStart, const State& state, const Workspace& ws);
    long holdSteps_ = 0;      // steps in a row with rows on a loop (nearly) dependent
    long holdCheck_ = 0;      // at how many of them the reactions are looked at next
    long holdInterval_ = 0;   // and how many after that
    double holdSeen_ = -1.0;  // when reactions the tolerance sets were seen (to be confirmed)
    double holdEnd_ = std::numeric_limits<double>::quiet_NaN();  // where the last step ended

    static int substepsFor(const Model& model, const State& state, double h) {
        double fastest = 0.0;
        for (int b = 0; b < model.bodyCount(); ++b)
            fastest = std::max(fastest, layout::angular(state.v, b).norm());
        int n = 1;
        while (n < kMaxSubsteps && fastest * h > kMaxTurn * n) n *= 2;
        return n;
    }

    // The state a step (of n substeps) begins from, to go back to if it fails. Its contact
    // points (at 10,000 parts, 3 MB copied a step) are kept only when a substep after the
    // first can fail: a single step that fails has not changed them.
    void keepStart(State& state, int n) {
        std::vector<ContactPointState> contacts;
        contacts.swap(state.contacts);  // (no copy: the state's own buffer, put back below)
        // (the positions and velocities copied on the threads: both sides' set aside, so that
        // the assignment copies the rest and start_ keeps its buffers)
        Eigen::VectorXd q, v, keptQ, keptV;
        q.swap(state.q);
        v.swap(state.v);
        keptQ.swap(start_.q);
        keptV.swap(start_.v);
        start_ = state;
        state.q.swap(q);
        state.v.swap(v);
        start_.q.swap(keptQ);
        start_.v.swap(keptV);
        copyOnThreads(start_.q, state.q);
        copyOnThreads(start_.v, state.v);
        contacts.swap(state.contacts);
        startHasContacts_ = n > 1;
        if (startHasContacts_) start_.contacts = state.contacts;
    }
    void restoreStart(State& state) {
        std::vector<ContactPointState> contacts;
        contacts.swap(state.contacts);
        state = start_;
        contacts.swap(state.contacts);
        if (startHasContacts_) state.contacts = start_.contacts;
    }

    double stepSize_;
    State start_;
    bool startHasContacts_ = false;
};

}  // namespace engine::detail
