#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/dynamics/projection.h"
#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/math/finite.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"

namespace engine {

using detail::normaliseQuaternions;
using detail::retract;

// A mechanism held at a singular position — a linkage stretched straight between two pivots and
// loaded across it — carries the load as an internal force of about W/θ along the rows that
// lose a direction there, θ the angle the projection tolerance leaves them (about
// √(tolerance / L)): reactions set by the joint tolerance, not by the physics, and different
// for every step size (0.6 MN at 1 ms, 0.9 MN at 0.1 ms on a 5 kg linkage under gravity), while
// the motion itself goes on unharmed, so nothing else stops the run. Watched after every step:
// rows on a closed loop within 1e-3 rad of depending on each other (relative pivot below 1e-6)
// or rows dropped as dependent, kHoldSteps steps in a row. Then the reactions are found at the
// state as it is and again with the joints met kHoldTighter times more closely: reactions that
// physics determines move by round-off between the two (1e-12 of them at the IFToMM double
// four-bar's passages), reactions the tolerance sets by their own size; the run stops when
// they still do kHoldAgain later, the rows dependent all along. A passage through a singular
// position never stays that long (12 steps of 0.1 ms at most on the double four-bar; driven
// through it at 0.01 rad/s, the reactions depend on the tolerance for about 3 ms); a mechanism
// resting at one with nothing pushing it across (no reactions) is not stopped, and is looked
// at again after twice as many steps each time, up to kHoldLongest.
namespace {
constexpr long kHoldSteps = 50;
constexpr long kHoldLongest = 800;
constexpr double kHoldPivot = 1e-6;
constexpr double kHoldTighter = 100.0;
constexpr double kHoldChange = 0.1;  // of the reactions, between the two
constexpr double kHoldKeep = 1e-15;  // relative pivot down to which the rows are kept there
constexpr double kHoldAgain = 0.05;  // s from reactions the tolerance sets to the confirmation
}  // namespace

Status detail::FixedStepIntegrator::watchHold(const Model& model, double stepStart,
                                              const State& state, const Workspace& ws) {
    const KktSolver& solver = ws.solver;
    const bool dependent = solver.rows() > 0 && (solver.rank() < solver.bestRank() ||
                                                 solver.weakestLoopPivot() < kHoldPivot);
    if (!dependent || stepStart != holdEnd_) {  // (a state set from elsewhere starts afresh)
        holdSteps_ = 0;
        holdInterval_ = kHoldSteps;
        holdCheck_ = kHoldSteps;
        holdSeen_ = -1.0;
    }
    holdEnd_ = state.t;
    if (!dependent || ++holdSteps_ < holdCheck_) return {};
    if (holdSeen_ >= 0.0 && state.t < holdSeen_ + kHoldAgain) {
        holdCheck_ = holdSteps_ + 1;  // (a confirmation waits for its time)
        return {};
    }

    // The reactions at the state, and with the joints met more closely: the rigid model's, each
    // in a workspace of its own whose rows are analysed afresh at the state and kept down to
    // pivots of kHoldKeep (not the run's, which may have dropped one of them there — its
    // reactions then come and go with the row — and whose memory the run goes on with).
    auto reactions = [&](State at, bool tighter, Eigen::VectorXd& lambda) -> Status {
        Workspace scratch;
        scratch.solver.setSingularPivot(kHoldKeep);
        if (Status s = prepareWorkspace(model, at, scratch); !s.ok) return s;
        if (tighter) {
            if (Status s = projectState(model, at, scratch, nullptr,
                                        model.settings.projectionTolerance / kHoldTighter);
                !s.ok)
                return s;
        }
        if (Status s = computeAccelerations(model, at.t, at.q, at.v, at.jointCoordinates, at.lagged,
                                            scratch);
            !s.ok)
            return s;
        lambda = scratch.lambda;
        return {};
    };
    Eigen::VectorXd loose, tight;
    if (!reactions(state, false, loose).ok || !reactions(state, true, tight).ok) return {};
    const int rows = model.constraintRows();
    if (loose.size() < rows || tight.size() < rows) return {};
    Eigen::Index row = 0;
    const double change = (tight.head(rows) - loose.head(rows)).cwiseAbs().maxCoeff(&row);
    const double size =
        std::max(loose.head(rows).cwiseAbs().maxCoeff(), tight.head(rows).cwiseAbs().maxCoeff());
    if (!(change > kHoldChange * size) || !(size > 0.0)) {
        holdSeen_ = -1.0;
        holdInterval_ = std::min(2 * holdInterval_, kHoldLongest);
        holdCheck_ = holdSteps_ + holdInterval_;
        return {};
    }
    // Seen once: a slow passage (a linkage driven through its dead point at 0.01 rad/s) has
    // such reactions too, for the few steps it is within about √(10 tolerance / L) of the
    // position. Held, they are still there kHoldAgain later, the rows dependent all along.
    if (holdSeen_ < 0.0) {
        holdSeen_ = state.t;
        holdCheck_ = holdSteps_ + kHoldSteps;
        return {};
    }
    const int r = static_cast<int>(row);
    return Status::failure("at t = " + timeText(state.t) +
                               " the reactions depend on how closely the joints are met: " +
                               constraintRowName(model, r) + " carries " +
                               constraintReactionText(model, r, loose(row)) +
                               " with the joints met to the scene's projection tolerance, " +
                               constraintReactionText(model, r, tight(row)) + " with them met " +
                               numberText(kHoldTighter) + " times more closely",
                           {constraintRowEntity(model, r)});
}

void detail::stepPositions(const Model& model, double h, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& v, Eigen::VectorXd& q,
                           std::vector<BodyFrame>& frames) {
    const int n = model.bodyCount();
    q.resize(q0.size());
    frames.resize(static_cast<std::size_t>(n));
    const double* qIn = q0.data();
    const double* vIn = v.data();
    double* qOut = q.data();
    for (int b = 0; b < n; ++b) {
        BodyFrame& f = frames[static_cast<std::size_t>(b)];
        const double* p0 = qIn + layout::positionIndex(b);
        const double* vb = vIn + layout::velocityIndex(b);
        double* p1 = qOut + layout::positionIndex(b);
        f.r = Vec3(p0[0] + h * vb[0], p0[1] + h * vb[1], p0[2] + h * vb[2]);
        p1[0] = f.r.x();
        p1[1] = f.r.y();
        p1[2] = f.r.z();
        // exp(½ θ') = (cos a, sin(a)/a · ½θ'), a = |½θ'|: by their Taylor series to the a⁸
        // term below a = 0.05 (a step turning a body by at most 0.1 rad, as the fixed-step
        // methods' substeps keep it: truncation below 1e-19), else from sin and cos. The
        // series' coefficients are multiplied, not divided by (a division costs ten
        // multiplications' time, and these four are in a chain).
        const double hx = 0.5 * h * vb[3], hy = 0.5 * h * vb[4], hz = 0.5 * h * vb[5];
        const double a2 = hx * hx + hy * hy + hz * hz;
        double c, sinc;
        if (a2 < 0.0025) {
            constexpr double k2 = 1.0 / 2.0, k12 = 1.0 / 12.0, k30 = 1.0 / 30.0, k56 = 1.0 / 56.0;
            constexpr double k6 = 1.0 / 6.0, k20 = 1.0 / 20.0, k42 = 1.0 / 42.0, k72 = 1.0 / 72.0;
            c = 1.0 - a2 * k2 * (1.0 - a2 * k12 * (1.0 - a2 * k30 * (1.0 - a2 * k56)));
            sinc = 1.0 - a2 * k6 * (1.0 - a2 * k20 * (1.0 - a2 * k42 * (1.0 - a2 * k72)));
        } else {
            const double a = std::sqrt(a2);
            c = std::cos(a);
            sinc = std::sin(a) / a;
        }
        const double dx = sinc * hx, dy = sinc * hy, dz = sinc * hz;
        // e = e₀ ⊗ (c, d), stored (w, x, y, z).
        const double w0 = p0[3], x0 = p0[4], y0 = p0[5], z0 = p0[6];
        double w = w0 * c - x0 * dx - y0 * dy - z0 * dz;
        double x = w0 * dx + x0 * c + y0 * dz - z0 * dy;
        double y = w0 * dy - x0 * dz + y0 * c + z0 * dx;
        double z = w0 * dz + x0 * dy - y0 * dx + z0 * c;
        // Unit length again (the product of unit quaternions is one to round-off).
        const double scale = unitQuaternionScale(w * w + x * x + y * y + z * z);
        w *= scale;
        x *= scale;
        y *= scale;
        z *= scale;
        p1[3] = w;
        p1[4] = x;
        p1[5] = y;
        p1[6] = z;
    }
    // R from the quaternion as stored, as every other frame at this pose forms it: a re-run
    // from a recorded pose then starts from the same Φq to the last bit. (A pass of its own:
    // each body's chain of dependent operations is shorter, so more bodies are in flight.)
    for (int b = 0; b < n; ++b) {
        BodyFrame& f = frames[static_cast<std::size_t>(b)];
        f.R = rotationOfStored(qOut + layout::positionIndex(b) + 3);
        // Poses only: v is an iterate, not the step's end velocity (projected after), so no
        // frame velocity is formed; NaN, so that nothing takes one for it.
        f.v = f.w = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
    }
}

double detail::stepResiduals(const Model& model, double h, double t1, const Eigen::VectorXd& q0,
                             const Eigen::VectorXd& v, const SparseRowMatrix& J0,
                             const std::vector<MotionLevel>& level,
                             const Eigen::VectorXd& accelerationTarget, Workspace& ws,
                             Eigen::VectorXd& q, Eigen::VectorXd& residual) {
    stepPositions(model, h, q0, v, q, ws.frames);
    const int rows = model.constraintRows();
    residual.resize(rows);
    if (rows == 0) return 0.0;
    evaluateConstraintResiduals(model, t1, ws.frames, ws.constraints);
    auto Jv = [&](int r) {
        double sum = 0.0;
        for (SparseRowMatrix::InnerIterator it(J0, r); it; ++it) sum += it.value() * v(it.col());
        return sum;
    };
    double worst = 0.0;
    const double inverseH = 1.0 / h;
    for (int r = 0; r < rows; ++r) {
        switch (level[static_cast<std::size_t>(r)]) {
        case MotionLevel::Position:
            residual(r) = ws.constraints.Phi(r) * inverseH;
            worst = std::max(worst, std::abs(ws.constraints.Phi(r)));
            break;
        case MotionLevel::Velocity:
            residual(r) = Jv(r) - ws.constraints.nu(r);
            worst = std::max(worst, h * std::abs(residual(r)));
            break;
        case MotionLevel::Acceleration:
            residual(r) = Jv(r) - accelerationTarget(r);
            worst = std::max(worst, h * std::abs(residual(r)));
            break;
        }
    }
    return worst;
}

void detail::copyOnThreads(Eigen::VectorXd& to, const Eigen::VectorXd& from) {
    constexpr Eigen::Index kBlock = 4096;  // (from eight blocks up: 32,768 entries, 5,000 bodies)
    to.resize(from.size());
    runRanges(static_cast<std::size_t>((from.size() + kBlock - 1) / kBlock), 8,
              [&](std::size_t first, std::size_t last) {
                  const Eigen::Index at = static_cast<Eigen::Index>(first) * kBlock;
                  const Eigen::Index end =
                      std::min(from.size(), static_cast<Eigen::Index>(last) * kBlock);
                  to.segment(at, end - at) = from.segment(at, end - at);
              });
}

Status detail::beginStep(const Model& model, const State& state, Workspace& ws, double h,
                         bool softJointForces, StepStart& out, const HeldBodies& held) {
    if (Status s = evaluateAppliedForces(model, state.t, state.q, state.v, state.jointCoordinates,
                                         state.lagged, ws, softJointForces, held.framesHeld);
        !s.ok)
        return s;
    out.dampingPower = ws.forceEnergies.dampingPower;
    out.actuatorPower = ws.forceEnergies.actuatorPower;
    // (body by body on the engine's threads for many bodies: the same sums either way)
    out.vFree.resize(state.v.size());
    runRanges(
        static_cast<std::size_t>(model.bodyCount()), kParallelBodies,
        [&](std::size_t first, std::size_t last) {
            if (held.still) {
                for (std::size_t body = first; body < last; ++body) {
                    const int b = static_cast<int>(body);
                    if ((*held.still)[body])
                        layout::twist(out.vFree, b) = layout::twist(state.v, b);
                    else
                        layout::twist(out.vFree, b) =
                            layout::twist(state.v, b) +
                            h * layout::twist(ws.Minv, b).cwiseProduct(layout::twist(ws.g, b));
                }
                return;
            }
            const auto at = static_cast<Eigen::Index>(layout::kVelocitiesPerBody * first);
            const auto n = static_cast<Eigen::Index>(layout::kVelocitiesPerBody * (last - first));
            out.vFree.segment(at, n) = state.v.segment(at, n) +
                                       h * ws.Minv.segment(at, n).cwiseProduct(ws.g.segment(at, n));
        });
    out.accelerationTarget.resize(0);
    if (model.constraintRows() == 0) return {};
    const bool accelerationRows = hasAccelerationDrivers(model);
    // (the forces left the frames at (qₙ, vₙ))
    if (Status s =
            factorizeConstraints(model, state.t, state.q, state.v, ws, accelerationRows, true);
        !s.ok)
        return s;
    if (accelerationRows)
        out.accelerationTarget = ws.solver.jacobian() * state.v + h * ws.constraints.gamma;
    return {};
}

void detail::addDriverWork(const Model& model, const SparseRowMatrix& J0,
                           const Eigen::VectorXd& impulse, const Eigen::VectorXd& v, State& state) {
    model.forEachWorkingRow([&](int row) {
        double rate = 0.0;
        for (SparseRowMatrix::InnerIterator it(J0, row); it; ++it) rate += it.value() * v(it.col());
        state.driverWork -= impulse(row) * rate;
    });
}

}  // namespace engine
