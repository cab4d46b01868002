#include "engine/analysis/kinematic_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include <Eigen/SVD>

#include "engine/analysis/mobility.h"
#include "engine/constraints/constraints.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"

namespace engine {
namespace {

// The narrowest interval a lock-up is located to [s].
constexpr double kLockUpResolution = 1e-12;

// A solved instant: the state, its accelerations, the outputs and the motions' power.
struct Instant {
    State state;
    Eigen::VectorXd vdot;
    Outputs outputs;
    std::vector<double> power;
};

class Analysis {
public:
    Analysis(const Model& model, const KinematicOptions& options)
        : model_(model), options_(options), offsets_(jointCoordinateOffsets(model)) {}

    Status start(Instant& first) {
        first.state = initialState(model_);
        if (Status s = prepareWorkspace(model_, first.state, ws_); !s.ok) return s;
        redundantAtStart_.assign(ws_.solver.redundantRows().begin(),
                                 ws_.solver.redundantRows().end());
        std::string why;
        if (!solve(first, why))
            return Status::failure("the mechanism cannot be assembled at t = 0: " + why);
        return {};
    }

    // Solves at `t` from the solved instant `from` (its positions carried forward by its
    // velocity and acceleration). False, with the reason, where the mechanism cannot follow its
    // motions there.
    bool advance(const Instant& from, double t, Instant& to, std::string& why) {
        const double h = t - from.state.t;
        to.state = from.state;
        to.state.t = t;
        Eigen::VectorXd delta = h * from.state.v + 0.5 * h * h * from.vdot;
        detail::retract(model_, to.state.q, delta);
        to.state.v = from.state.v + h * from.vdot;
        bool solved = solve(to, why);
        if (!solved) {
            // Close to a dead centre the prediction can overshoot: once more from `from` itself.
            to.state = from.state;
            to.state.t = t;
            solved = solve(to, why);
        }
        if (!solved) return false;
        // The motions' work, by the trapezoidal rule over the interval.
        if (options_.inverseDynamics)
            for (std::size_t d = 0; d < to.power.size(); ++d)
                to.state.driverWork += 0.5 * h * (from.power[d] + to.power[d]);
        to.outputs.energies.driverWork = to.state.driverWork;
        return true;
    }

    int maxIterations() const { return maxIterations_; }

    // The equations that become dependent at `instant` (next to a lock-up): the rows with the
    // largest share in the left singular vector of the smallest singular value of Φq over the
    // rows kept. The first is the one with the largest share.
    std::vector<int> dependentRows(const Instant& instant) {
        computeBodyFrames(model_, instant.state.q, instant.state.v, ws_.frames);
        evaluateConstraints(model_, instant.state.t, ws_.frames, ws_.constraints, false);
        ws_.factored = false;  // the constraints held are no longer the factorisation's
        const SparseRowMatrix& Phi_q = ws_.constraints.Phi_q;
        std::vector<int> active;  // every row but those redundant from the start
        for (int r = 0; r < static_cast<int>(Phi_q.rows()); ++r)
            if (!std::binary_search(redundantAtStart_.begin(), redundantAtStart_.end(), r))
                active.push_back(r);
        Eigen::MatrixXd A(static_cast<Eigen::Index>(active.size()), Phi_q.cols());
        for (std::size_t k = 0; k < active.size(); ++k)
            A.row(static_cast<Eigen::Index>(k)) = Phi_q.row(active[k]);
        // Rows scaled to unit length, so an angle equation and a length equation compare.
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

private:
    bool solve(Instant& instant, std::string& why) {
        State& state = instant.state;
        int iterations = 0;
        // The positions to a thousandth of the scene's tolerance (met as far as round-off lets
        // Newton go; the scene's tolerance is what must hold).
        if (Status s = projectState(model_, state, ws_, &iterations,
                                    1e-3 * model_.settings.projectionTolerance);
            !s.ok) {
            why = s.message;
            return false;
        }
        maxIterations_ = std::max(maxIterations_, iterations);
        if (Status s = computeOutputs(model_, state, ws_, instant.outputs); !s.ok) {
            why = s.message;
            return false;
        }
        // An equation that became dependent on the others: Φq has lost rank here.
        for (int row : ws_.solver.redundantRows()) {
            if (std::binary_search(redundantAtStart_.begin(), redundantAtStart_.end(), row))
                continue;
            why = constraintRowName(model_, row) +
                  " depends on the other equations here (the constraint Jacobian lost rank)";
            return false;
        }
        if (const int row = ws_.solver.unmetRow(); row >= 0) {
            why = constraintRowName(model_, row) + " cannot be met here";
            return false;
        }
        instant.vdot = ws_.vdot;
        instant.power.assign(model_.drivers.size(), 0.0);
        if (!options_.inverseDynamics) {
            // Not computed: a kinematic analysis involves no masses or forces.
            const double none = std::numeric_limits<double>::quiet_NaN();
            for (JointReaction& r : instant.outputs.reactions)
                r.force_W = r.torque_W = r.force_J = r.torque_J = Vec3::Constant(none);
            std::fill(instant.outputs.driverEffort.begin(), instant.outputs.driverEffort.end(),
                      none);
            std::fill(instant.power.begin(), instant.power.end(), none);
            return true;
        }
        for (std::size_t d = 0; d < model_.drivers.size(); ++d) {
            const DriverModel& driver = model_.drivers[d];
            const Eigen::Index slot =
                offsets_[static_cast<std::size_t>(driver.joint)] + driver.coordinate;
            instant.power[d] = instant.outputs.driverEffort[d] * instant.outputs.jointRates(slot);
        }
        instant.outputs.energies.driverWork = state.driverWork;
        return true;
    }

    const Model& model_;
    const KinematicOptions& options_;
    std::vector<int> offsets_;
    Workspace ws_;
    std::vector<int> redundantAtStart_;
    int maxIterations_ = 0;
};

std::string secondsText(double t) {
    std::ostringstream out;
    out.precision(10);
    out << t << " s";
    return out.str();
}

}  // namespace

KinematicResult kinematicAnalysis(const std::shared_ptr<const Model>& modelPtr,
                                  const KinematicOptions& options, const KinematicSink& sink) {
    KinematicResult result;
    if (!modelPtr) {
        result.status = Status::failure("no model");
        return result;
    }
    const Model& model = *modelPtr;
    if (!(options.duration >= 0.0) || !std::isfinite(options.duration)) {
        result.status = Status::failure("the duration must be a finite time of at least 0 s");
        return result;
    }
    const double interval =
        options.outputInterval > 0.0 ? options.outputInterval : model.settings.outputSpacing();
    if (!(interval >= kMinStepSize) || !std::isfinite(interval)) {
        result.status = Status::failure("the output interval must be at least 1e-07 s");
        return result;
    }
    const MobilityReport mobility = engine::mobility(modelPtr);
    if (!mobility.ok) {
        result.status = Status::failure(mobility.message);
        return result;
    }
    if (mobility.actualDof > 0) {
        std::ostringstream what;
        what << "a kinematic analysis needs every degree of freedom driven: this mechanism has "
             << mobility.actualDof
             << " left free at its initial pose (add motions, or run dynamics; at a dead centre "
                "or toggle position a driven mechanism has a free one too: start it elsewhere)";
        result.status = Status::failure(what.str());
        return result;
    }
    result.redundantEquations = mobility.redundantCount;

    // Next to a dead centre Newton slows down to linear convergence (the equations nearly
    // depend on each other): the lock-up is located to 1e-8 s or so with room for 100
    // iterations, to 1e-5 s with the scene's 8. Away from it 2 or 3 are taken, as in a run.
    Model local = model;
    local.settings.maxProjectionIterations = std::max(local.settings.maxProjectionIterations, 100);
    Analysis analysis(local, options);
    Instant last, next;
    if (Status s = analysis.start(last); !s.ok) {
        result.status = s;
        return result;
    }
    auto deliver = [&](const Instant& instant) {
        std::string error;
        const KinematicFrame frame{instant.state, instant.vdot, instant.outputs, instant.power};
        if (!sink(frame, error)) {
            result.status = Status::failure(error.empty() ? "stopped" : error);
            return false;
        }
        ++result.frames;
        result.reached = instant.state.t;
        return true;
    };
    if (!deliver(last)) return result;

    // Solved at least every step between outputs (the step: the scene's, at most the interval).
    const double step =
        std::min(interval, model.settings.stepSize > 0.0 ? model.settings.stepSize : interval);
    const auto outputs = static_cast<long>(std::floor(options.duration / interval + 1e-9));
    const bool partialLast = options.duration - static_cast<double>(outputs) * interval >
                             1e-9 * std::max(1.0, options.duration);
    const long total = outputs + (partialLast ? 1 : 0);
    for (long k = 1; k <= total; ++k) {
        const double t0 = last.state.t;
        const double t1 = k == total ? options.duration : static_cast<double>(k) * interval;
        const int substeps = std::max(1, static_cast<int>(std::ceil((t1 - t0) / step - 1e-9)));
        for (int i = 1; i <= substeps; ++i) {
            if (options.cancel && options.cancel->load()) {
                result.status = Status::failure("cancelled");
                return result;
            }
            const double t = i == substeps ? t1 : t0 + (t1 - t0) * i / substeps;
            std::string why;
            if (analysis.advance(last, t, next, why)) {
                std::swap(last, next);
                continue;
            }
            // A lock-up between last.state.t and t: located by bisection.
            double lo = last.state.t, hi = t;
            Instant good = last;
            for (int b = 0; b < 200 && hi - lo > kLockUpResolution * std::max(1.0, hi); ++b) {
                const double mid = 0.5 * (lo + hi);
                std::string midWhy;
                if (analysis.advance(good, mid, next, midWhy)) {
                    std::swap(good, next);
                    lo = mid;
                } else {
                    hi = mid;
                    why = midWhy;
                }
            }
            result.lockedUp = true;
            result.lockUpTime = lo;
            result.maxNewtonIterations = analysis.maxIterations();
            const std::vector<int> rows = analysis.dependentRows(good);
            std::set<std::string> names;
            std::string list;
            for (int row : rows) {
                const std::string name = constraintRowName(local, row);
                const std::string owner = name.substr(0, name.find(" ("));
                if (!names.insert(owner).second) continue;
                list += (list.empty() ? "" : ", ") + owner;
            }
            if (!rows.empty()) result.lockUpEquation = constraintRowName(local, rows.front());
            std::string message = "lock-up at t = " + secondsText(lo) +
                                  ": the mechanism cannot follow its motions beyond this instant";
            if (!list.empty())
                message += " (a dead centre or toggle position: the equations of " + list +
                           " become dependent)";
            message += "; just after it: " + why;
            result.status = Status::failure(message);
            return result;
        }
        if (!deliver(last)) return result;
        if (options.progress && options.duration > 0.0)
            options.progress->store(std::min(1.0, last.state.t / options.duration));
    }
    result.maxNewtonIterations = analysis.maxIterations();
    return result;
}

}  // namespace engine
