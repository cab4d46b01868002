#include "engine/analysis/kinematic_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/mobility.h"
#include "engine/kinematics/joint_coordinates.h"

namespace engine {
namespace {

// The joints and motions of `ids`, named as messages name them: "joint 'A', motion 'drive'".
std::string entityNames(const Model& model, const std::vector<EntityId>& ids) {
    std::string out;
    for (EntityId id : ids) {
        std::string name;
        for (const JointModel& j : model.joints)
            if (j.id == id) name = "joint '" + j.name + "'";
        for (const DriverModel& d : model.drivers)
            if (d.id == id) name = "motion '" + d.name + "'";
        if (!name.empty()) out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

}  // namespace

std::shared_ptr<const Model> kinematicModel(const Model& model) {
    auto kinematic = std::make_shared<Model>(model);
    kinematic->kinematic = true;
    // Next to a dead centre Newton slows down to linear convergence (the equations nearly
    // depend on each other): the lock-up is located to 1e-8 s or so with room for 100
    // iterations, to 1e-5 s with the scene's 8. Away from it 2 or 3 are taken, as in a run.
    kinematic->settings.maxProjectionIterations =
        std::max(kinematic->settings.maxProjectionIterations, 100);
    return kinematic;
}

Status fullyDrivenProblem(const std::shared_ptr<const Model>& model) {
    const MobilityReport mobility = engine::mobility(model);
    if (!mobility.ok) return Status::failure(mobility.message, mobility.entities, mobility.cause);
    if (mobility.actualDof == 0) return {};
    std::ostringstream what;
    what << "a kinematic analysis needs every degree of freedom driven: this mechanism has "
         << mobility.actualDof
         << " left free at its initial pose (add motions, or run dynamics; at a dead centre or "
            "toggle position a driven mechanism has a free one too: start it elsewhere)";
    return Status::failure(what.str());
}

KinematicResult kinematicAnalysis(const std::shared_ptr<const Model>& model,
                                  const KinematicOptions& options, const KinematicSink& sink) {
    KinematicResult result;
    if (!model) {
        result.status = Status::failure("no model");
        return result;
    }
    if (!(options.duration >= 0.0) || !std::isfinite(options.duration)) {
        result.status = Status::failure("the duration must be a finite time of at least 0 s");
        return result;
    }
    const double interval =
        options.outputInterval > 0.0 ? options.outputInterval : model->settings.outputSpacing();
    if (!(interval >= kMinStepSize) || !std::isfinite(interval)) {
        result.status = Status::failure("the output interval must be at least 1e-07 s");
        return result;
    }
    if (Status problem = fullyDrivenProblem(model); !problem.ok) {
        result.status = std::move(problem);
        return result;
    }
    result.redundantEquations = mobility(model).redundantCount;

    const std::shared_ptr<const Model> kinematic = kinematicModel(*model);
    ForwardDynamics run(kinematic);
    if (Status s = run.initialize(); !s.ok) {
        result.status = Status::failure("the mechanism cannot be assembled at t = 0: " + s.message,
                                        s.entities, Cause::CannotAssemble);
        return result;
    }
    const std::vector<int> offsets = jointCoordinateOffsets(*kinematic);
    Outputs outputs;
    std::vector<double> power;
    auto deliver = [&]() {
        if (Status s = run.outputs(outputs); !s.ok) {
            result.status = s;
            return false;
        }
        const double none = std::numeric_limits<double>::quiet_NaN();
        power.assign(kinematic->drivers.size(), none);
        if (options.inverseDynamics) {
            for (std::size_t d = 0; d < kinematic->drivers.size(); ++d) {
                const DriverModel& driver = kinematic->drivers[d];
                const Eigen::Index slot =
                    offsets[static_cast<std::size_t>(driver.joint)] + driver.coordinate;
                power[d] = outputs.driverEffort[d] * outputs.jointRates(slot);
            }
        } else {
            // Not computed: a kinematic analysis involves no masses or forces.
            for (JointReaction& r : outputs.reactions)
                r.force_W = r.torque_W = r.force_J = r.torque_J = Vec3::Constant(none);
            std::fill(outputs.driverEffort.begin(), outputs.driverEffort.end(), none);
        }
        std::string error;
        const KinematicFrame frame{run.state(), run.accelerations(), outputs, power};
        if (!sink(frame, error)) {
            result.status = Status::failure(error.empty() ? "stopped" : error);
            return false;
        }
        ++result.frames;
        result.reached = run.state().t;
        return true;
    };
    if (!deliver()) return result;

    const auto whole = static_cast<long>(std::floor(options.duration / interval + 1e-9));
    const bool partialLast = options.duration - static_cast<double>(whole) * interval >
                             1e-9 * std::max(1.0, options.duration);
    const long total = whole + (partialLast ? 1 : 0);
    for (long k = 1; k <= total; ++k) {
        if (options.cancel && options.cancel->load()) {
            result.status = Status::failure("cancelled", {}, Cause::Cancelled);
            return result;
        }
        const double t = k == total ? options.duration : static_cast<double>(k) * interval;
        if (Status s = run.advance(t); !s.ok) {
            result.maxNewtonIterations =
                std::max(result.maxNewtonIterations, run.statistics().projectionIterations);
            if (s.cause == Cause::LockUp) {
                result.lockedUp = true;
                result.lockUpTime = run.state().t;
                result.lockUpEquation = entityNames(*kinematic, s.entities);
            }
            result.status = s;
            return result;
        }
        result.maxNewtonIterations =
            std::max(result.maxNewtonIterations, run.statistics().projectionIterations);
        if (!deliver()) return result;
        if (options.progress && options.duration > 0.0)
            options.progress->store(std::min(1.0, t / options.duration));
    }
    return result;
}

}  // namespace engine
