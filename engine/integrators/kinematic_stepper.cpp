// The kinematic stepper: the motion of a fully driven mechanism solved at each instant from
// the constraints alone (engine/analysis/kinematic_analysis.h says what and why).

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <Eigen/SVD>

#include "engine/constraints/constraints.h"
#include "engine/dynamics/reactions.h"
#include "engine/dynamics/stops.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/math/number_text.h"

namespace engine {
namespace detail {
namespace {

// The narrowest interval a lock-up is located to [s].
constexpr double kLockUpResolution = 1e-12;

class KinematicStepper final : public Integrator {
public:
    void reset() override { solvedTime_ = std::numeric_limits<double>::quiet_NaN(); }

    Status advance(const Model& model, State& state, Workspace& ws, double tEnd) override {
        if (!analysed_) {  // the structural redundancy, as analysed at the start
            redundantAtStart_ = ws.solver.redundantRows();
            analysed_ = true;
        }
        // The accelerations and the motions' power at the start (a state set from elsewhere,
        // or the first call).
        if (!(solvedTime_ == state.t)) {
            std::string why;
            State start = state;
            if (!solve(model, start, ws, why))
                return Status::failure("the mechanism cannot follow its motions at t = " +
                                           numberText(state.t, 10, "s") + ": " + why,
                                       whyEntities_);
            state = start;
        }
        const double step = model.settings.stepSize > 0.0 ? model.settings.stepSize : 1e-3;
        const double t0 = state.t;
        const int substeps = std::max(1, static_cast<int>(std::ceil((tEnd - t0) / step - 1e-9)));
        for (int i = 1; i <= substeps; ++i) {
            const double t = i == substeps ? tEnd : t0 + (tEnd - t0) * i / substeps;
            std::string why;
            State next;
            if (forward(model, state, t, next, ws, why)) {
                state = std::move(next);
                ++stats_.steps;
                // What expressions read of the previous step: the solve where this one ended.
                if (model.laggedCount > 0) {
                    if (Status s = updateLagged(model, state, ws, nullptr); !s.ok) return s;
                }
                continue;
            }
            return lockUp(model, state, t, ws, why);
        }
        return {};
    }

private:
    // Solves at `t` from the solved state `from`: its positions carried forward by its velocity
    // and acceleration, then, close to a dead centre where that can overshoot, from `from`
    // itself. The motions' work by the trapezoidal rule.
    bool forward(const Model& model, const State& from, double t, State& to, Workspace& ws,
                 std::string& why) {
        const double h = t - from.t;
        const Eigen::VectorXd vdot = vdot_;
        const std::vector<double> power = power_;
        const double frictionPower = frictionPower_;
        to = from;
        to.t = t;
        const Eigen::VectorXd delta = h * from.v + 0.5 * h * h * vdot;
        retract(model, to.q, delta);
        to.v = from.v + h * vdot;
        bool solved = solve(model, to, ws, why);
        if (!solved) {
            to = from;
            to.t = t;
            solved = solve(model, to, ws, why);
        }
        if (!solved) {
            vdot_ = vdot;  // still those of `from`
            power_ = power;
            frictionPower_ = frictionPower;
            solvedTime_ = from.t;
            return false;
        }
        for (std::size_t d = 0; d < power_.size(); ++d)
            to.driverWork += 0.5 * h * (power[d] + power_[d]);
        to.dissipatedEnergy += 0.5 * h * (frictionPower + frictionPower_);
        return true;
    }

    // Positions, velocities, accelerations and the motions' power at state.t. False where the
    // mechanism cannot follow its motions there.
    bool solve(const Model& model, State& state, Workspace& ws, std::string& why) {
        int iterations = 0;
        // The positions to a thousandth of the scene's tolerance (met as far as round-off lets
        // Newton go; the scene's tolerance is what must hold).
        if (Status s = projectState(model, state, ws, &iterations,
                                    1e-3 * model.settings.projectionTolerance);
            !s.ok) {
            why = s.message;
            whyEntities_ = s.entities;
            stopReached_ = false;
            return false;
        }
        stats_.projectionIterations = iterations;
        if (!withinStops(model, state, why)) return false;
        if (Status s = computeAccelerations(model, state.t, state.q, state.v,
                                            state.jointCoordinates, state.lagged, ws);
            !s.ok) {
            why = s.message;
            whyEntities_ = s.entities;
            stopReached_ = false;
            return false;
        }
        ++stats_.evaluations;
        // The Coulomb friction of the coordinates that move, in the efforts (as outputs has it).
        addSlidingFriction(model, ws, friction_);
        frictionPower_ = 0.0;  // what it takes out [W]
        for (std::size_t k = 0; k < friction_.size(); ++k) {
            const JointFrictionModel& f = model.frictions[k];
            frictionPower_ -=
                friction_[k] * jointCoordinate(model, ws.frames, f.joint, f.coordinate).rate;
        }
        // An equation that became dependent on the others: Φq has lost rank here.
        for (int row : ws.solver.redundantRows()) {
            if (std::binary_search(redundantAtStart_.begin(), redundantAtStart_.end(), row))
                continue;
            why = constraintRowName(model, row) +
                  " depends on the other equations here (the constraint Jacobian lost rank)";
            whyEntities_ = {constraintRowEntity(model, row)};
            stopReached_ = false;
            return false;
        }
        if (const int row = ws.solver.unmetRow(); row >= 0) {
            why = constraintRowName(model, row) + " cannot be met here";
            whyEntities_ = {constraintRowEntity(model, row)};
            stopReached_ = false;
            return false;
        }
        vdot_ = ws.vdot;
        power_.assign(model.drivers.size(), 0.0);
        for (std::size_t d = 0; d < model.drivers.size(); ++d) {
            const DriverModel& driver = model.drivers[d];
            const double effort = -ws.lambda(model.jointRows + static_cast<int>(d));
            power_[d] =
                effort * jointCoordinate(model, ws.frames, driver.joint, driver.coordinate).rate;
        }
        solvedTime_ = state.t;
        return true;
    }

    // Whether every limited joint coordinate is within its stops at the solved positions (to
    // the projection tolerance): a motion that drives a joint past its stop locks the
    // mechanism there as a dead centre does.
    bool withinStops(const Model& model, const State& state, std::string& why) {
        const double tolerance = model.settings.projectionTolerance;
        for (const LimitModel& limit : model.limits) {
            if (state.jointCoordinates.size() <= limit.slot) continue;
            const double c = state.jointCoordinates(limit.slot);
            const bool low = c<limit.lower - tolerance, high = c> limit.upper + tolerance;
            if (!low && !high) continue;
            const JointModel& joint = model.joints[static_cast<std::size_t>(limit.joint)];
            const char* unit = limit.axis == JointAxis::Rotation ? "rad" : "m";
            why = "joint '" + joint.name + "' would pass its " + (low ? "lower" : "upper") +
                  " stop at " + numberText(low ? limit.lower : limit.upper, 10, unit) + " (its " +
                  std::string(jointAxisName(limit.axis)) + " " + numberText(c, 10, unit) + ")";
            whyEntities_ = {joint.id};
            stopReached_ = true;
            return false;
        }
        return true;
    }

    // A lock-up between the solved state and t: located by bisection, named by the equations
    // that become dependent. The state is left at the last instant solved.
    Status lockUp(const Model& model, State& state, double t, Workspace& ws, std::string why) {
        double lo = state.t, hi = t;
        State next;
        for (int b = 0; b < 200 && hi - lo > kLockUpResolution * std::max(1.0, hi); ++b) {
            const double mid = 0.5 * (lo + hi);
            std::string midWhy;
            if (forward(model, state, mid, next, ws, midWhy)) {
                state = next;
                lo = mid;
            } else {
                hi = mid;
                why = midWhy;
            }
        }
        std::string list;
        std::vector<EntityId> entities;    // the joints and motions whose equations lock
        const bool atStop = stopReached_;  // (a stop, not equations that become dependent)
        for (int row : atStop ? std::vector<int>{} : dependentRows(model, state, ws)) {
            const EntityId owner = constraintRowEntity(model, row);
            if (std::find(entities.begin(), entities.end(), owner) != entities.end()) continue;
            entities.push_back(owner);
            list += (list.empty() ? "" : ", ") + constraintRowOwner(model, row);
        }
        for (const EntityId e : whyEntities_)
            if (std::find(entities.begin(), entities.end(), e) == entities.end())
                entities.push_back(e);
        std::string message = "lock-up at t = " + numberText(lo, 10, "s") +
                              ": the mechanism cannot follow its motions beyond this instant";
        if (atStop) message += " (a joint reaches its end stop)";
        if (!list.empty())
            message += " (a dead centre or toggle position: the equations of " + list +
                       " become dependent)";
        message += "; just after it: " + why;
        // The workspace's constraints now belong to the lock-up pose, not to a factorisation.
        ws.factored = false;
        return Status::failure(message, std::move(entities), Cause::LockUp);
    }

    // The equations that become dependent at `state`: the rows with the largest share in the
    // left singular vector of the smallest singular value of Φq (rows scaled to unit length, so
    // angle and length equations compare; rows redundant from the start left out), largest
    // share first.
    std::vector<int> dependentRows(const Model& model, const State& state, Workspace& ws) const {
        computeBodyFrames(model, state.q, state.v, ws.frames);
        evaluateConstraints(model, state.t, ws.frames, ws.constraints, false);
        const SparseRowMatrix& Phi_q = ws.constraints.Phi_q;
        std::vector<int> active;
        for (int r = 0; r < static_cast<int>(Phi_q.rows()); ++r)
            if (!std::binary_search(redundantAtStart_.begin(), redundantAtStart_.end(), r))
                active.push_back(r);
        if (active.empty() || active.size() > 600) return {};  // dense: a few hundred rows at most
        Eigen::MatrixXd A(static_cast<Eigen::Index>(active.size()), Phi_q.cols());
        for (std::size_t k = 0; k < active.size(); ++k)
            A.row(static_cast<Eigen::Index>(k)) = Phi_q.row(active[k]);
        for (Eigen::Index r = 0; r < A.rows(); ++r)
            if (const double n = A.row(r).norm(); n > 0.0) A.row(r) /= n;
        const Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullU);
        const Eigen::VectorXd u = svd.matrixU().col(std::min(A.rows(), A.cols()) - 1);
        std::vector<std::pair<double, int>> share;
        for (Eigen::Index r = 0; r < u.size(); ++r)
            share.emplace_back(std::abs(u(r)), active[static_cast<std::size_t>(r)]);
        std::sort(share.rbegin(), share.rend());
        std::vector<int> rows;
        for (const auto& [weight, row] : share)
            if (weight >= 0.2 * share.front().first) rows.push_back(row);
        return rows;
    }

    std::vector<int> redundantAtStart_;
    std::vector<EntityId> whyEntities_;  // what the last failure to solve was about
    std::vector<double> friction_;       // the sliding friction of the last instant solved
    double frictionPower_ = 0.0;         // the power it takes out there [W]
    bool stopReached_ = false;  // the last failure to solve was a joint's stop, not its equations
    bool analysed_ = false;
    double solvedTime_ = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd vdot_;
    std::vector<double> power_;
};

}  // namespace
}  // namespace detail

std::unique_ptr<Integrator> makeKinematicStepper() {
    return std::make_unique<detail::KinematicStepper>();
}

}  // namespace engine
