#include "engine/analysis/forward_dynamics.h"

#include "engine/analysis/assembly.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <Eigen/Eigenvalues>

#include "engine/dynamics/joint_space.h"
#include "engine/dynamics/projection.h"
#include "engine/dynamics/reactions.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/retract.h"
#include "engine/kinematics/state_measures.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/stiffness.h"
#include "engine/model/switches.h"

namespace engine {
namespace {

// When S = Φq M⁻¹ Φqᵀ is near singular only by its weights (see failureCause): the part whose
// mass or moment of inertia lies farthest from the others, named, else "".
std::string massSpread(const Model& model, const Eigen::MatrixXd& J, int rows, int redundancy) {
    if (model.bodyCount() == 0) return "";
    // S of parts of unit mass and moments of inertia L² (L the mechanism's size).
    double size2 = 1.0;
    const Eigen::VectorXd unitInverse = unitPartMetric(model, &size2).cwiseInverse();
    const Eigen::MatrixXd Sg = J * unitInverse.asDiagonal() * J.transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> geometric(Sg, Eigen::EigenvaluesOnly);
    // The geometry itself near singular (more directions lost than the mechanism's structural
    // redundancy, the most rows it has ever kept): a singular position after all.
    if (geometric.info() != Eigen::Success || redundancy >= rows ||
        geometric.eigenvalues()(redundancy) < 1e-5 * geometric.eigenvalues()(rows - 1))
        return "";
    // Each part's weights (1/m and L²/J_k, as S has them, relative to the unit part's), and
    // the one farthest from the median in orders of magnitude.
    std::vector<double> logs;
    for (const BodyModel& body : model.bodies) {
        logs.push_back(std::log10(body.mass));
        for (int k = 0; k < 3; ++k) logs.push_back(std::log10(body.inertia(k) / size2));
    }
    if (!std::all_of(logs.begin(), logs.end(), [](double x) { return std::isfinite(x); }))
        return "";
    std::vector<double> sorted = logs;
    std::nth_element(sorted.begin(),
                     sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::size_t worst = 0;
    for (std::size_t i = 0; i < logs.size(); ++i)
        if (std::abs(logs[i] - median) > std::abs(logs[worst] - median)) worst = i;
    const auto [low, high] = std::minmax_element(logs.begin(), logs.end());
    if (*high - *low < 8.0) return "";  // weights within 1e8 of each other: not the cause
    const BodyModel& part = model.bodies[worst / 4];
    return ". The joints' equations, weighed by the parts' masses and inertias, are too "
           "ill-conditioned to be met to the joint tolerance: those span " +
           numberText(std::pow(10.0, *high - *low), 3) + " (part '" + part.name +
           "': " + numberText(part.mass, 3) + " kg, moments of inertia " +
           numberText(part.inertia(0), 3) + ", " + numberText(part.inertia(1), 3) + ", " +
           numberText(part.inertia(2), 3) +
           " kg·m²). The position itself is not singular: check that part's mass properties (a "
           "rigid part's moments are of the order of its mass times its size squared)";
}

// Why a step failed, in terms of the scene, at the last good state (what a failed step left):
// a force element too stiff for the step (it flings the parts apart, and whichever joint fails
// first would otherwise be blamed), else a singular position (a toggle or dead point: rows of
// the constraint Jacobian become dependent beyond the mechanism's structural redundancy), or mass
// properties so far apart that the joints' equations cannot be met (massSpread).
std::string failureCause(const Model& model, const State& state, Workspace& ws) {
    std::vector<Transform> X_WB;
    for (int b = 0; b < model.bodyCount(); ++b)
        X_WB.push_back({bodyOrientation(state.q, b).normalized(), bodyPosition(state.q, b)});
    // An adaptive method's step is the one it had come down to (its proposal, kept in the state).
    const bool adaptive = model.settings.integrator == IntegratorType::DormandPrince45;
    const double step = adaptive && state.stepHint > 0.0 ? state.stepHint : model.settings.stepSize;
    if (const StiffnessEstimate e = stiffestBeyondLimit(model, X_WB, step);
        e.force >= 0 || e.joint >= 0)
        return ". Likely cause: " + stiffnessMessage(model, e, step);

    // The mass-metric Schur complement S = Φq M⁻¹ Φqᵀ: its eigenvalues beyond the structurally
    // redundant ones measure how far the joints are from losing a direction of motion. Dense:
    // done once, for mechanisms of up to 600 rows, when a run has already stopped.
    const int rows = model.constraintRows();
    if (rows == 0 || rows > 600 || !state.q.allFinite() || ws.Minv.size() != model.velocitySize())
        return "";
    computeBodyFrames(model, state.q, state.v, ws.frames);
    evaluateConstraints(model, state.t, ws.frames, ws.constraints);
    const Eigen::MatrixXd J(ws.constraints.Phi_q);
    const Eigen::MatrixXd S = J * ws.Minv.asDiagonal() * J.transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(S);
    if (eigen.info() != Eigen::Success) return "";
    // Directions the rows lose together: eigenvectors of the (near-)zero eigenvalues. Those of
    // a structurally redundant mechanism (a planar loop of spatial joints) hold joint rows only;
    // one that holds a motion's row says the motion cannot be followed: a lock-up.
    const double largest = eigen.eigenvalues()(rows - 1);
    auto rowsOf = [&](const Eigen::VectorXd& u) {
        std::vector<std::string> names;
        std::set<std::string> seen;
        for (Eigen::Index r = 0; r < rows; ++r) {
            if (std::abs(u(r)) < 0.2 * u.cwiseAbs().maxCoeff()) continue;
            const std::string name = constraintRowOwner(model, static_cast<int>(r));
            if (seen.insert(name).second) names.push_back(name);
        }
        std::string list;
        const std::size_t n = std::min<std::size_t>(names.size(), 6);
        for (std::size_t k = 0; k < n; ++k)
            list += (k == 0 ? "" : k + 1 == n ? " and " : ", ") + names[k];
        return list;
    };
    for (Eigen::Index k = 0; k < rows && eigen.eigenvalues()(k) < 1e-5 * largest; ++k) {
        const Eigen::VectorXd u = eigen.eigenvectors().col(k);
        for (int d = 0; d < static_cast<int>(model.drivers.size()); ++d) {
            if (std::abs(u(model.jointRows + d)) < 0.1) continue;
            if (!model.drivers[static_cast<std::size_t>(d)].on) continue;  // switched off: empty
            return ". The mechanism locks up: at this position (a toggle or dead point) " +
                   rowsOf(u) + " lose a direction of motion together, and motion '" +
                   model.drivers[static_cast<std::size_t>(d)].name +
                   "' drives it on in that direction: no motion of the parts can follow it";
        }
    }
    const auto structural = static_cast<Eigen::Index>(ws.solver.redundantRows().size());
    if (structural >= rows || !(eigen.eigenvalues()(structural) < 1e-5 * largest)) return "";
    // S weighs the rows by the parts' masses and inertias. Weighed instead as parts of unit
    // mass and of moments of inertia L² (L the mechanism's size), S that is near singular only
    // by its weights says that the mass properties, not the position, are at fault: a part of
    // 1e11 kg with the inertia of a 1 kg rod, whose weights span fifteen orders of magnitude.
    const int redundancy =
        ws.solver.bestRank() > 0 ? rows - ws.solver.bestRank() : static_cast<int>(structural);
    if (const std::string masses = massSpread(model, J, rows, redundancy); !masses.empty())
        return masses;
    return ". The mechanism is at a singular position (a toggle or dead point) where " +
           rowsOf(eigen.eigenvectors().col(structural)) +
           " lose a direction of motion together: reactions there grow without bound (held "
           "there, as a linkage stretched straight between two pivots is, they are set by the "
           "joint tolerance, not by the physics: a soft joint among them gives them a value)";
}

}  // namespace

ForwardDynamics::ForwardDynamics(std::shared_ptr<const Model> model)
    : base_(model),
      model_(std::move(model)),
      loops_(hasClosedLoops(*model_)),
      memorySize_(solverMemorySize(*model_)),
      stepperMemorySize_(LoopStepper::memorySize(*model_)) {
    formulation_ = chooseFormulation(*model_);
    integrator_ = model_->kinematic ? makeKinematicStepper()
                                    : makeIntegrator(model_->settings, formulation_.formulation);
}

namespace {

// State::rest fitted to the model: kept where the model lets parts sleep and the state says
// for each body, else every part awake (or none kept: the model's parts never sleep).
void fitRest(const Model& model, State& state, bool wake) {
    const bool sleeps = model.contact.enabled && model.contact.settings.sleepTime > 0.0;
    const auto bodies = static_cast<std::size_t>(model.bodyCount());
    if (!sleeps)
        state.rest.clear();
    else if (wake || state.rest.size() != bodies)
        state.rest.assign(bodies, 0.0);
}

}  // namespace

Status ForwardDynamics::initialize() {
    return initialize(initialState(*model_));
}

Status ForwardDynamics::initialize(const State& state) {
    if (formulation_.refused)
        return Status::failure(
            "the scene asks for the recursive formulation, but " + formulation_.reason, {},
            Cause::FormulationRefused);
    state_ = state;
    model_ = switchedModel(base_, state_.switches);
    state_.solverMemory.clear();  // a new start: the rows analysed afresh
    integrator_->reset();
    ws_.step.valid = false;
    // The rank analysis at the pose as placed comes first: mobility() reads its counts even
    // when the mechanism cannot be assembled.
    if (Status s = prepareWorkspace(*model_, state_, ws_); !s.ok) return s;
    AssemblyResult assembled = assembleMechanism(*model_, state_);
    if (!assembled.status.ok) return assembled.status;
    state_ = std::move(assembled.state);
    // Joint coordinates take the loops' multipliers from their rows' rank at each instant:
    // they cannot start from a singular position (maximal coordinates pass through one).
    if (formulation_.formulation == Formulation::Recursive && !model_->kinematic) {
        std::string why;
        if (const std::optional<JointTree> tree = buildJointTree(*model_, state_, why);
            tree && loopsSingularAt(*model_, *tree, state_, why))
            return Status::failure("the scene asks for the recursive formulation, but " + why +
                                       "; \"maximal\" steps through singular positions",
                                   {}, Cause::FormulationRefused);
    }
    Status s = prepareWorkspace(*model_, state_, ws_);
    // What expressions read of the previous step starts as the assembled state's solve (with
    // every such input 0 in its forces).
    if (s.ok && model_->laggedCount > 0) {
        state_.lagged = Eigen::VectorXd::Zero(model_->laggedCount);
        s = updateLagged(*model_, state_, ws_, nullptr);
    }
    // A new start (at t = 0, or an edit's at a recorded state) wakes every part: what slept
    // may not rest in the model as it is now.
    fitRest(*model_, state_, true);
    saveSolverMemory();
    return s;
}

Status ForwardDynamics::resume(const State& state) {
    if (formulation_.refused)
        return Status::failure(
            "the scene asks for the recursive formulation, but " + formulation_.reason, {},
            Cause::FormulationRefused);
    state_ = state;
    model_ = switchedModel(base_, state_.switches);
    integrator_->reset();
    ws_.step.valid = false;
    fitRest(*model_, state_, false);
    Status s = prepareWorkspace(*model_, state_, ws_);
    if (s.ok) restoreSolverMemory(state);
    // A state that does not hold them (set from elsewhere): found here, as at a start.
    if (s.ok && state_.lagged.size() != model_->laggedCount) {
        state_.lagged = Eigen::VectorXd::Zero(model_->laggedCount);
        s = updateLagged(*model_, state_, ws_, nullptr);
    }
    return s;
}

void ForwardDynamics::wake() {
    for (double& rest : state_.rest)
        if (rest < 0.0) rest = 0.0;
}

Status ForwardDynamics::setHeld(int slot, double value) {
    if (slot < 0 || slot >= static_cast<int>(base_->switches.size()) ||
        base_->switches[static_cast<std::size_t>(slot)].kind != SwitchKind::Held)
        return Status::failure("switch " + std::to_string(slot) + " is not a held variable");
    if (!std::isfinite(value))
        return Status::failure(
            base_->switches[static_cast<std::size_t>(slot)].name + " set to " + numberText(value),
            {}, Cause::NotFinite);
    if (state_.switches.size() != base_->switches.size())
        state_.switches = initialState(*base_).switches;
    if (state_.switches[static_cast<std::size_t>(slot)] == value) return {};
    state_.switches[static_cast<std::size_t>(slot)] = value;
    const SwitchModel& what = base_->switches[static_cast<std::size_t>(slot)];
    if (model_ != base_ && model_.use_count() == 1) {
        // A switched copy only this run holds: the variable set in it, not a new copy (a
        // control loop sets its inputs every step). It was made non-const (switchedModel).
        VariableModel& v =
            const_cast<Model&>(*model_).variables[static_cast<std::size_t>(what.index)];
        v.expression = Expression::constant(value);
        v.expression.setText(v.name);
    } else {
        model_ = switchedModel(base_, state_.switches);
    }
    // The masses and the joints are as they were: the factored matrices and the joint tree
    // hold; what the integrator computed from the old forces does not.
    integrator_->forcesChanged();
    ws_.step.valid = false;
    return {};
}

void ForwardDynamics::restore(const State& state) {
    // The sensors' events after it did not happen in the run that goes on from it.
    std::erase_if(sensorEvents_, [&](const SensorEvent& e) { return e.time > state.t; });
    stopped_ = false;
    state_ = state;
    model_ = switchedModel(base_, state_.switches);
    if (state_.lagged.size() != model_->laggedCount)  // (a state this model did not produce)
        state_.lagged = Eigen::VectorXd::Zero(model_->laggedCount);
    fitRest(*model_, state_, false);
    integrator_->reset();
    ws_.step.valid = false;
    ws_.factored = false;
    restoreSolverMemory(state);
}

// An adaptive integrator steps in a solver of its own: the workspace's only projects and
// solves at the outputs, where nothing reads its pivots (no stage is taken on the manifold
// there), and how many pivots it has seen depends on how often outputs are asked for. Its rows
// dropped are kept, its pivots not, so that a frame does not depend on how often frames are
// recorded.
static bool workspacePivots(const Model& model, bool pivots) {
    return pivots && model.settings.integrator != IntegratorType::DormandPrince45;
}

void ForwardDynamics::saveSolverMemory() {
    const bool pivots = loops_;
    const int one = KktSolver::memorySize(model_->constraintRows(), pivots);
    const int stepper = stepperMemorySize_, solvers = memorySize_ - stepper;
    std::vector<double>& memory = state_.solverMemory;
    memory.assign(static_cast<std::size_t>(memorySize_), 0.0);
    if (ws_.solver.rows() == model_->constraintRows())
        ws_.solver.saveMemory(memory.data(), workspacePivots(*model_, pivots));
    else
        memory[0] = -1.0;  // not analysed yet: no memory
    if (solvers >= 2 * one) {
        const KktSolver* own = integrator_->ownSolver();
        if (own && own->rows() == model_->constraintRows())
            own->saveMemory(memory.data() + one, pivots);
        else
            memory[static_cast<std::size_t>(one)] = -1.0;
    }
    if (stepper > 0) integrator_->saveStepMemory(memory.data() + solvers, stepper);
}

void ForwardDynamics::restoreSolverMemory(const State& state) {
    const std::vector<double>& memory = state.solverMemory;
    if (static_cast<int>(memory.size()) != memorySize_) return;  // none, or stale
    const bool pivots = loops_;
    const int one = KktSolver::memorySize(model_->constraintRows(), pivots);
    const int stepper = stepperMemorySize_, solvers = memorySize_ - stepper;
    if (ws_.solver.rows() == model_->constraintRows()) {
        ws_.solver.restoreMemory(memory.data(), workspacePivots(*model_, pivots));
        ws_.factored = false;
    }
    if (solvers >= 2 * one) integrator_->restoreOwnSolver(memory.data() + one, one);
    if (stepper > 0) integrator_->restoreStepMemory(memory.data() + solvers, stepper);
}

Status ForwardDynamics::sensorLevels(std::vector<double>& levels) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model_, state_.q, state_.v, frames);
    std::vector<double> values;
    if (model_->stateValueCount() > 0)
        evaluateStateValues(*model_, state_.t, frames, state_.jointCoordinates, state_.lagged,
                            values);
    levels.resize(model_->sensors.size());
    for (std::size_t k = 0; k < model_->sensors.size(); ++k) {
        const SensorModel& sensor = model_->sensors[k];
        const double value =
            evalStateExpression(sensor.expression, sensor.inputs, state_.t, values);
        if (!std::isfinite(value))
            return Status::failure("sensor '" + sensor.name + "': its expression '" +
                                       sensor.expression.text() + "' is " + numberText(value) +
                                       " at t = " + timeText(state_.t),
                                   {}, Cause::NotFinite);
        levels[k] = value - sensor.value;
    }
    return {};
}

Status ForwardDynamics::advance(double tEnd) {
    stopped_ = false;
    if (model_->sensors.empty() || model_->velocitySize() == 0) return integrate(tEnd);
    // The sensors are every switched model's (switches change values, not sensors); the model
    // they are read from is held here, as restore() and act() replace model_.
    const std::shared_ptr<const Model> watched = model_;
    const std::vector<SensorModel>& sensors = watched->sensors;
    const bool adaptive = model_->settings.integrator == IntegratorType::DormandPrince45;
    const double spacing = adaptive ? 1e-3 : model_->settings.stepSize;
    const auto crossed = [&](const SensorModel& sensor, double before, double after) {
        const bool up = before < 0.0 && after >= 0.0, down = before > 0.0 && after <= 0.0;
        return sensor.direction == SensorDirection::Rising    ? up
               : sensor.direction == SensorDirection::Falling ? down
                                                              : up || down;
    };
    std::vector<double> before, after;
    if (Status s = sensorLevels(before); !s.ok) return s;
    const double eps = 1e-12 * std::max(1.0, std::abs(tEnd));
    while (state_.t < tEnd - eps) {
        // The next watch on the millisecond (step) grid, so that watching does not depend on
        // how the run is cut into advances.
        const double tNext =
            std::min(tEnd, (std::floor(state_.t / spacing + 1e-9) + 1.0) * spacing);
        const State saved = state_;
        if (Status s = integrate(tNext); !s.ok) return s;
        if (Status s = sensorLevels(after); !s.ok) return s;
        // The earliest crossing among those between the two watches.
        int first = -1;
        double firstTime = 0.0;
        for (std::size_t k = 0; k < sensors.size(); ++k) {
            const SensorModel& sensor = sensors[k];
            if (!crossed(sensor, before[k], after[k])) continue;
            double time = 0.0;
            if (adaptive) {
                // On the continuous extension: the Illinois method between the watches, each
                // value a resumed run to that instant (the same steps, interpolated).
                double a = saved.t, b = state_.t, ga = before[k], gb = after[k];
                int side = 0;
                for (int iteration = 0; iteration < 100 && b - a > 1e-12 * std::max(1.0, b);
                     ++iteration) {
                    double t = (a * gb - b * ga) / (gb - ga);
                    if (!(t > a && t < b)) t = 0.5 * (a + b);
                    restore(saved);
                    if (Status s = integrate(t); !s.ok) return s;
                    std::vector<double> levels;
                    if (Status s = sensorLevels(levels); !s.ok) return s;
                    const double g = levels[k];
                    if (crossed(sensor, ga, g) || g == 0.0) {
                        b = t;
                        gb = g;
                        if (side == 1) ga *= 0.5;
                        side = 1;
                    } else {
                        a = t;
                        ga = g;
                        if (side == -1) gb *= 0.5;
                        side = -1;
                    }
                }
                time = b;  // on the crossed side
            } else {
                time = saved.t + (state_.t - saved.t) * before[k] / (before[k] - after[k]);
            }
            if (first < 0 || time < firstTime) {
                first = static_cast<int>(k);
                firstTime = time;
            }
        }
        if (first < 0) {
            before = after;
            continue;
        }
        // The run at the earliest crossing (dopri45), or at the step after it.
        if (adaptive) {
            restore(saved);
            if (Status s = integrate(firstTime); !s.ok) return s;
        } else {
            restore(saved);
            if (Status s = integrate(tNext); !s.ok) return s;
        }
        sensorEvents_.push_back({first, firstTime});
        const SensorModel& sensor = sensors[static_cast<std::size_t>(first)];
        if (sensor.action == SensorAction::Stop) {
            stopped_ = true;
            return {};
        }
        if (Status s = act(sensor); !s.ok) return s;
        if (Status s = sensorLevels(before); !s.ok) return s;
    }
    return {};
}

Status ForwardDynamics::act(const SensorModel& sensor) {
    if (sensor.target < 0) return {};  // marks
    double value = sensor.action == SensorAction::SwitchOn ? 1.0 : 0.0;
    if (sensor.action == SensorAction::Set) {
        std::vector<BodyFrame> frames;
        computeBodyFrames(*model_, state_.q, state_.v, frames);
        std::vector<double> values;
        if (model_->stateValueCount() > 0)
            evaluateStateValues(*model_, state_.t, frames, state_.jointCoordinates, state_.lagged,
                                values);
        value = evalStateExpression(sensor.to, sensor.toInputs, state_.t, values);
        if (!std::isfinite(value))
            return Status::failure(
                "sensor '" + sensor.name + "' sets " +
                    base_->switches[static_cast<std::size_t>(sensor.target)].name + " to '" +
                    sensor.to.text() + "', which is " + numberText(value) +
                    " at t = " + timeText(state_.t),
                {}, Cause::NotFinite);
    }
    const auto slot = static_cast<std::size_t>(sensor.target);
    if (state_.switches.size() != base_->switches.size())
        state_.switches = initialState(*base_).switches;
    if (state_.switches[slot] == value) return {};  // already so
    const SwitchModel& what = base_->switches[slot];
    if (what.kind == SwitchKind::Motion && model_->kinematic)
        return Status::failure("sensor '" + sensor.name + "' switches " +
                               switchText(*base_, sensor.target, value) +
                               ": a kinematic analysis needs every motion all along (run "
                               "dynamics instead)");
    state_.switches[slot] = value;
    model_ = switchedModel(base_, state_.switches);
    // A motion switched on at the position level starts from where its joint is.
    if (what.kind == SwitchKind::Motion && value != 0.0) {
        const DriverModel& driver = model_->drivers[static_cast<std::size_t>(what.index)];
        if (driver.level == MotionLevel::Position) {
            std::vector<BodyFrame> frames;
            computeBodyFrames(*model_, state_.q, state_.v, frames);
            const JointModel& joint = model_->joints[static_cast<std::size_t>(driver.joint)];
            const bool angle = joint.coordinates[static_cast<std::size_t>(driver.coordinate)] ==
                               JointAxis::Rotation;
            const double c = jointCoordinateValue(*model_, frames, driver.joint, driver.coordinate);
            double miss = c - driver.f.eval(state_.t);
            if (angle) miss = std::remainder(miss, 2.0 * kPi);
            if (!(std::abs(miss) <= 1e-3))
                return Status::failure(
                    "sensor '" + sensor.name + "' switches motion '" + driver.name +
                        "' on at t = " + timeText(state_.t) + ", where its joint is " +
                        numberText(std::abs(miss), 4, angle ? "rad" : "m") +
                        " from what its expression '" + driver.f.text() +
                        "' prescribes: the parts would jump there. A position-level motion "
                        "switched on must start where the joint is (write its expression from "
                        "the instant it starts), or prescribe the speed (velocity level)",
                    {driver.id});
        }
    }
    // A discontinuity: the integrator starts afresh from this state, the rows analysed again
    // (a motion's row in or out), and the velocities projected onto them (a motion switched on
    // at the velocity level takes its speed at once, as an impulse).
    state_.stepOrigin.resize(0);
    integrator_->reset();
    ws_.step.valid = false;
    if (Status s = prepareWorkspace(*model_, state_, ws_); !s.ok) return s;
    if (Status s = projectState(*model_, state_, ws_); !s.ok) return s;
    saveSolverMemory();
    return {};
}

Status ForwardDynamics::integrate(double tEnd) {
    // Nothing moves in a scene of ground alone (what File > New makes): time just passes.
    if (model_->velocitySize() == 0) {
        state_.t = std::max(state_.t, tEnd);
        return {};
    }
    Status s;
    if (std::none_of(base_->switches.begin(), base_->switches.end(),
                     [](const SwitchModel& k) { return k.kind == SwitchKind::Slip; })) {
        s = integrator_->advance(*model_, state_, ws_, tEnd);
    } else {
        // Cables slip over pulleys with friction at the end of each step (each millisecond of
        // dopri45), on the step grid so that it does not depend on how the run is cut.
        const bool adaptive = model_->settings.integrator == IntegratorType::DormandPrince45;
        const double spacing = adaptive ? 1e-3 : model_->settings.stepSize;
        const double eps = 1e-12 * std::max(1.0, std::abs(tEnd));
        while (s.ok && state_.t < tEnd - eps) {
            const double tNext =
                std::min(tEnd, (std::floor(state_.t / spacing + 1e-9) + 1.0) * spacing);
            s = integrator_->advance(*model_, state_, ws_, tNext);
            if (s.ok) settleSlip();
        }
    }
    saveSolverMemory();
    // A motion whose expression stops being a number, or jumps, is its own cause, and so is a
    // force element's expression that stops being a number or races off (named with its
    // value); anything else is explained.
    // (A kinematic run's failure is a lock-up, explained where it is found.)
    if (!s.ok && !s.expressionCause && !model_->kinematic)
        s.message += failureCause(*model_, state_, ws_);
    return s;
}

void ForwardDynamics::settleSlip() {
    if (state_.switches.size() != base_->switches.size()) return;
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model_, state_.q, state_.v, frames);
    const std::vector<int> offsets = jointCoordinateOffsets(*model_);
    bool moved = false, switched = false;
    int read = -1;
    std::vector<CableSlipReading> readings;
    std::vector<int> slips;  // the cables that start to slip
    for (std::size_t k = 0; k + 1 < base_->switches.size(); ++k) {
        const SwitchModel& what = base_->switches[k];
        if (what.kind != SwitchKind::Slip) continue;  // (its Slipping slot follows it)
        const ForceModel& force = model_->forces[static_cast<std::size_t>(what.index)];
        if (!force.on) continue;
        if (read != what.index) {
            readings = cableSlips(*model_, force, frames, state_.jointCoordinates, offsets);
            read = what.index;
        }
        const CableSlipReading& r = readings[static_cast<std::size_t>(what.via)];
        if (!r.cut) continue;
        const double grip = std::exp(force.wraps[static_cast<std::size_t>(what.via)].friction *
                                     std::max(r.wrap, 0.0));
        double& slip = state_.switches[k];
        double& slipping = state_.switches[k + 1];
        if (slipping == 0.0) {
            // Gripping: it slips once one side pulls more than e^{μθ} times the other.
            if (r.after > grip * r.before) slipping = 1.0;
            if (r.before > grip * r.after) slipping = -1.0;
            if (slipping != 0.0) {
                switched = true;
                if (slips.empty() || slips.back() != what.index) slips.push_back(what.index);
            }
        } else {
            // Slipping: it grips again where the slip would turn back.
            if ((r.slip - slip) * slipping < 0.0) {
                slipping = 0.0;
                switched = true;
            }
            moved = moved || r.slip != slip;
            slip = r.slip;
        }
    }
    if (moved || switched) {
        // A cable that starts to slip lets its junction go to the balance at once: the elastic
        // energy it gives up is the friction's work (the energy balance's dissipated part).
        auto elastic = [&](const Model& model) {
            ForceEnergies energies;
            Eigen::VectorXd g = Eigen::VectorXd::Zero(model.velocitySize());
            for (const int k : slips)
                applyForceElement(model, model.forces[static_cast<std::size_t>(k)], state_.t,
                                  frames, state_.jointCoordinates, state_.lagged, offsets, g,
                                  energies);
            return energies.elastic;
        };
        const double before = switched ? elastic(*model_) : 0.0;
        model_ = switchedModel(base_, state_.switches);
        if (switched) state_.dissipatedEnergy += before - elastic(*model_);
    }
    // A change of grip is a discontinuity of the forces: the integrator starts afresh there
    // (an adaptive one from this state, not from the start of the step that holds it).
    if (switched) {
        state_.stepOrigin.resize(0);
        state_.stepHint = 0.0;
        integrator_->reset();
        ws_.step.valid = false;
    }
}

Status ForwardDynamics::outputs(Outputs& out) {
    // In joint coordinates the reactions and motion efforts come from the recursive
    // Newton–Euler pass (no constraint solve).
    const JointTree* tree = nullptr;
    if (formulation_.formulation == Formulation::Recursive && !model_->kinematic) {
        if (!outputTree_ || outputTreeSerial_ != model_->serial) {
            std::string why;
            std::optional<JointTree> built = buildJointTree(*model_, state_, why);
            outputTree_ = built ? std::make_shared<const JointTree>(std::move(*built)) : nullptr;
            outputTreeSerial_ = model_->serial;
        }
        tree = outputTree_.get();
    }
    Status s = computeOutputs(*model_, state_, ws_, out, &ws_.step, tree);  // the last step's
    saveSolverMemory();  // the reactions' solve may have taken rows back
    return s;
}

}  // namespace engine
