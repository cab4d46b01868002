#include "engine/dynamics/projection.h"

#include <algorithm>
#include <cmath>

#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/retract.h"
#include "engine/math/finite.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

// A stalled projection asks for rows dropped at a singular position back (projectState) only
// for a gap within this many tolerances: one Newton has all but closed (the double four-bar
// driven slowly through its flat position stuck at 1.0003 of its tolerance). A run gone astray
// otherwise — a spring far too stiff for the step flinging a slider 900 m, its rows dependent
// to the analysis at every stage — asked at every stage and took 20 times as long.
constexpr double kTakeBackGap = 10.0;

}  // namespace

namespace {

// The joint coordinates from ws.frames, which hold the frames at state.q.
void updateJointCoordinatesFromFrames(const Model& model, State& state, const Workspace& ws) {
    int n = 0;
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (int c = 0; c < static_cast<int>(joint.coordinates.size()); ++c, ++n) {
            const double value = jointCoordinateValue(model, ws.frames, j, c);
            state.jointCoordinates(n) =
                joint.coordinates[static_cast<std::size_t>(c)] == JointAxis::Rotation
                    ? unwindAngle(value, state.jointCoordinates(n))
                    : value;
        }
    }
}

}  // namespace

void updateJointCoordinates(const Model& model, State& state, Workspace& ws) {
    computeBodyFrames(model, state.q, state.v, ws.frames);
    updateJointCoordinatesFromFrames(model, state, ws);
}

Status projectState(const Model& model, State& state, Workspace& ws, int* iterations,
                    double tolerance, bool driverWork, Eigen::VectorXd* velocityImpulse,
                    const std::vector<char>* still) {
    normaliseQuaternions(model, state.q, still);
    const SolverSettings& settings = model.settings;
    if (model.constraintRows() > 0) {
        // Positions: Newton steps Δq = −M⁻¹Φqᵀ S⁻¹ Φ on the position-level rows (non-position
        // rows carry Φ = 0: they keep their coordinates still). Residuals alone are cheap;
        // Φq is evaluated and factored only when a correction is needed.
        Eigen::VectorXd delta, before;
        int k = 0;
        double previous = 0.0;
        bool regularised = false, tookBack = false;
        if (!model.couplers.empty())
            seedCouplerCoordinates(model, state.jointCoordinates, ws.constraints);
        for (;; ++k) {
            computeBodyFrames(model, state.q, state.v, ws.frames);
            evaluateConstraintResiduals(model, state.t, ws.frames, ws.constraints);
            const Eigen::VectorXd residual = ws.constraints.Phi;
            // A NaN compares false with every tolerance: name the row (a motion whose
            // expression is not a number there, a part flung to infinity) instead.
            for (Eigen::Index r = 0; r < residual.size(); ++r)
                if (!std::isfinite(residual(r))) {
                    Status s = Status::failure(
                        constraintRowName(model, static_cast<int>(r)) + " is not finite at t = " +
                            timeText(state.t) + " (an expression that is not a number there?)",
                        {constraintRowEntity(model, static_cast<int>(r))}, Cause::NotFinite);
                    s.expressionCause = model.prescribedRow(static_cast<int>(r));
                    return s;
                }
            // Joint gaps as a user measures them (a point pair's distance, not its components).
            int row = 0;
            const double worst = maxPositionResidual(model, ws.constraints, &row);
            if (worst <= (tolerance > 0.0 ? tolerance : settings.projectionTolerance)) break;
            // A tighter goal (stages next to a singular position, where Newton slows down)
            // is met as far as it can be: the scene's tolerance is what must hold. A step that
            // widened the gap from an iterate that met it is taken back, and the projection
            // ends there: where the rows are within a pivot of being dropped, a Newton step
            // along their weak direction overshoots (9e-11 m → 1e-5 m on the double four-bar
            // driven slowly through its flat position), and the regularised steps after it
            // closed that too slowly to meet even the scene's tolerance.
            if (tolerance > 0.0 && k >= 1 && worst > previous &&
                previous <= settings.projectionTolerance) {
                state.q = before;
                computeBodyFrames(model, state.q, state.v, ws.frames);
                evaluateConstraintResiduals(model, state.t, ws.frames, ws.constraints);
                break;
            }
            if (k >= settings.maxProjectionIterations + (tolerance > 0.0 ? 2 : 0) &&
                worst <= settings.projectionTolerance)
                break;
            // ... and no further once Newton stops closing it (at a position the mechanism is
            // held in, where the rows stay dependent, it no longer halves the gap).
            if (tolerance > 0.0 && k >= 2 && worst > 0.5 * previous &&
                worst <= settings.projectionTolerance)
                break;
            if (k >= settings.maxProjectionIterations + (tolerance > 0.0 ? 2 : 0)) {
                return Status::failure(
                    "constraints could not be satisfied at t = " + timeText(state.t) + ": " +
                        constraintRowName(model, static_cast<int>(row)) + " is off by " +
                        constraintResidualText(model, static_cast<int>(row), worst) + " after " +
                        std::to_string(k) + " Newton iterations",
                    {constraintRowEntity(model, static_cast<int>(row))});
            }
            if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false); !s.ok)
                return s;
            // Newton converges quadratically while the rows kept hold every direction the
            // residual needs. Where it stalls with rows dropped at a singular position, the
            // solver is first asked to take back those the correction misses (as a velocity
            // projection does): the mechanism may have left that position, and a dropped row
            // gets no correction (the double four-bar driven slowly through its flat position
            // kept a row dropped after it, and its gap stayed at 1.0003e-10 m). Next to a
            // singular position a row dropped as dependent is only nearly so and its gap does
            // not close: from then on, regularised steps over every row (kkt_solver.h).
            const bool stalled = k >= 1 && worst > 0.1 * previous;
            // (only for a gap Newton had all but closed: kTakeBackGap)
            const bool takeBack = stalled && !tookBack && ws.solver.rank() < ws.solver.bestRank() &&
                                  worst <= kTakeBackGap * settings.projectionTolerance;
            tookBack = tookBack || takeBack;
            if (stalled && !takeBack && ws.solver.rank() < model.constraintRows())
                regularised = true;
            previous = worst;
            if (regularised)
                ws.solver.projectRegularized(residual, delta);
            else
                ws.solver.project(residual, delta, nullptr, takeBack ? worst : 0.0);
            if (tolerance > 0.0 && worst <= settings.projectionTolerance) before = state.q;
            retract(model, state.q, delta);
        }
        if (iterations) *iterations = k;
        return projectVelocities(model, state, ws, driverWork, true, velocityImpulse);
    }
    computeBodyFrames(model, state.q, state.v, ws.frames, still);
    updateJointCoordinatesFromFrames(model, state, ws);
    return {};
}

Status projectVelocities(const Model& model, State& state, Workspace& ws, bool driverWork,
                         bool coordinates, Eigen::VectorXd* impulse) {
    if (model.constraintRows() > 0) {
        // Velocities: v ← v − M⁻¹Φqᵀ S⁻¹ (Φq v − ν) on position- and velocity-level rows, with
        // Φq at the final positions (factored here; the next step starts from it).
        Eigen::VectorXd delta;
        if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false); !s.ok)
            return s;
        for (Eigen::Index r = 0; r < ws.constraints.nu.size(); ++r)
            if (!std::isfinite(ws.constraints.nu(r))) {
                Status s = Status::failure(
                    constraintRowName(model, static_cast<int>(r)) +
                        "'s rate is not finite at t = " + timeText(state.t) +
                        " (an expression whose derivative is not a number there?)",
                    {constraintRowEntity(model, static_cast<int>(r))}, Cause::NotFinite);
                s.expressionCause = model.prescribedRow(static_cast<int>(r));
                return s;
            }
        // Φq v − ν (acceleration-level rows: 0), and the size of the terms of Φq v = ν (a
        // residual below round-off of it is met), in one pass over Φq.
        const SparseRowMatrix& A = ws.constraints.Phi_q;
        Eigen::VectorXd& residual = ws.velocityResidual;
        residual.resize(A.rows());
        // Rows store whole 6-column body blocks (constraints.h): a block at a time.
        auto velocityResidual = [&] {
            using Vec6 = Eigen::Matrix<double, 6, 1>;
            double scale = 0.0;
            const double* values = A.valuePtr();
            const int* columns = A.innerIndexPtr();
            const int* starts = A.outerIndexPtr();
            for (Eigen::Index r = 0; r < A.outerSize(); ++r) {
                double sum = -ws.constraints.nu(r), terms = std::abs(ws.constraints.nu(r));
                for (int p = starts[r]; p < starts[r + 1]; p += 6) {
                    const Vec6 term = Eigen::Map<const Vec6>(values + p)
                                          .cwiseProduct(state.v.segment<6>(columns[p]));
                    sum += term.sum();
                    terms += term.cwiseAbs().sum();
                }
                scale = std::max(scale, terms);
                residual(r) =
                    ws.constraints.level[static_cast<std::size_t>(r)] == MotionLevel::Acceleration
                        ? 0.0
                        : sum;
            }
            return scale;
        };
        const double scale = velocityResidual();
        if ((!model.hasWorkingRows() || !driverWork) && ws.solver.redundantRows().empty() &&
            !impulse) {
            // Every row kept (no dropped row to check against the scale): added in place.
            ws.solver.projectAdd(residual, state.v, nullptr);
        } else if (!model.hasWorkingRows() || !driverWork) {
            ws.solver.project(residual, delta, impulse, scale);
            state.v += delta;
        } else {
            // A motion's row does work here too: a position-level motion's step meets the
            // motion's position, this correction its rate, so a run-up gets part of its speed
            // here (half of it, for a motion stepped at the velocity level). Its impulse μ
            // works at the mean of the velocities before and after, −μ Φq_d (v + v')/2.
            Eigen::VectorXd& mu = ws.velocityImpulse;
            ws.solver.project(residual, delta, &mu, scale);
            model.forEachWorkingRow([&](int row) {
                double rate = 0.0;
                for (SparseRowMatrix::InnerIterator it(A, row); it; ++it)
                    rate += it.value() * (state.v(it.col()) + 0.5 * delta(it.col()));
                state.driverWork -= mu(row) * rate;
            });
            state.v += delta;
            if (impulse) *impulse = mu;
        }
        // A row dropped as dependent that the correction misses (next to a singular position):
        // regularised corrections over every row until all are met, a few suffice.
        if (ws.solver.unmetRow() >= 0) {
            for (int pass = 0; pass < 4; ++pass) {
                velocityResidual();  // measured against the first residual's terms
                if (residual.cwiseAbs().maxCoeff() <= 1e-13 * scale) break;
                ws.solver.projectRegularized(residual, delta);
                state.v += delta;
            }
        }
        // The position loop ended with the frames at these positions.
        if (coordinates) updateJointCoordinatesFromFrames(model, state, ws);
        return {};
    }
    if (coordinates) updateJointCoordinates(model, state, ws);
    return {};
}

}  // namespace engine
