#include "engine/analysis/linearisation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/SVD>

#include "engine/constraints/constraints.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/kinematics.h"
#include "engine/kinematics/retract.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

// M v̇ at (q, v) with the time held: the net force the joints let act on each body.
Status netForce(const Model& model, const State& s, Workspace& ws, Eigen::VectorXd& out) {
    if (Status st = computeAccelerations(model, s.t, s.q, s.v, s.jointCoordinates, s.lagged, ws);
        !st.ok)
        return st;
    out = ws.vdot.cwiseQuotient(ws.Minv);
    return {};
}

// The size of the mechanism [m]: the largest distance of a body's centre of mass from their
// mean, at least 0.1 m (the scale of finite-difference steps).
double mechanismSize(const Model& model, const State& s) {
    Vec3 mean = Vec3::Zero();
    for (int b = 0; b < model.bodyCount(); ++b) mean += bodyPosition(s.q, b);
    mean /= std::max(1, model.bodyCount());
    double size = 0.1;
    for (int b = 0; b < model.bodyCount(); ++b)
        size = std::max(size, (bodyPosition(s.q, b) - mean).norm());
    return size;
}

// A finite-difference step for the minimal coordinate along column `n` of N that moves no
// point of the mechanism by more than 1e-6 of its size.
double stepAlong(const Eigen::VectorXd& n, double size, int bodies) {
    double largest = 0.0;
    for (int b = 0; b < bodies; ++b) {
        largest = std::max(largest, layout::linear(n, b).norm());
        largest = std::max(largest, size * layout::angular(n, b).norm());
    }
    return largest > 0.0 ? 1e-6 * size / largest : 1e-6;
}

}  // namespace

Status displace(const Model& model, const State& from, const Eigen::MatrixXd& N,
                const Eigen::VectorXd& z, Workspace& ws, State& to) {
    to = from;
    const Eigen::VectorXd delta = N * z;
    retract(model, to.q, delta);
    to.v.setZero();
    if (Status s = projectState(model, to, ws); !s.ok) return s;
    to.v.setZero();
    to.t = from.t;
    return {};
}

constexpr double kMaxLinearisationBytes = 2e9;  // B of dense matrices a linearisation may need

Linearisation linearise(const Model& model, const State& state, Workspace& ws, bool withDamping) {
    Linearisation out;
    State s = state;
    s.v.setZero();
    const int n = model.velocitySize();

    // The matrices here and in the analyses built on them (modes' 2f × 2f state matrix and its
    // complex eigenvectors) are dense: about 24 n² doubles. Refused beyond the bound before any
    // is allocated (10,000 free parts asked for 60,000² matrices and ended out of memory).
    const double denseBytes = 24.0 * 8.0 * static_cast<double>(n) * static_cast<double>(n);
    if (denseBytes > kMaxLinearisationBytes) {
        out.status = Status::failure(
            "the linearisation of " + std::to_string(n) + " velocity coordinates (" +
            std::to_string(model.bodyCount()) + " parts) needs dense " + std::to_string(n) + " × " +
            std::to_string(n) + " matrices, about " + numberText(denseBytes / 1e9, 3, "GB") +
            ", beyond its " + numberText(kMaxLinearisationBytes / 1e9, 3, "GB") +
            " bound: linearise fewer parts (about " +
            std::to_string(static_cast<int>(std::sqrt(kMaxLinearisationBytes / 192.0) / 6.0)) +
            " free parts fit)");
        return out;
    }

    // The allowed motions: the null space of Φq over the position-level rows (a motion given
    // as a velocity or an acceleration does not hold a position), M-orthonormal.
    computeBodyFrames(model, s.q, s.v, ws.frames);
    evaluateConstraints(model, s.t, ws.frames, ws.constraints, false);
    ws.factored = false;
    const Eigen::VectorXd scale = ws.Minv.cwiseSqrt();  // M^(−1/2)
    std::vector<int> held;
    for (int r = 0; r < model.constraintRows(); ++r)
        if (ws.constraints.level[static_cast<std::size_t>(r)] == MotionLevel::Position)
            held.push_back(r);
    if (held.empty()) {
        out.N = scale.asDiagonal();
    } else {
        Eigen::MatrixXd B(static_cast<Eigen::Index>(held.size()), n);
        for (std::size_t k = 0; k < held.size(); ++k)
            B.row(static_cast<Eigen::Index>(k)) = ws.constraints.Phi_q.row(held[k]);
        B = B * scale.asDiagonal();
        const Eigen::JacobiSVD<Eigen::MatrixXd> svd(B, Eigen::ComputeFullV);
        const Eigen::VectorXd& sigma = svd.singularValues();
        const double tolerance = 1e-9 * (sigma.size() > 0 ? sigma(0) : 1.0);
        Eigen::Index rank = 0;
        while (rank < sigma.size() && sigma(rank) > tolerance) ++rank;
        out.N = scale.asDiagonal() * svd.matrixV().rightCols(n - rank);
    }
    const Eigen::Index f = out.N.cols();

    Eigen::VectorXd F;
    if (Status st = netForce(model, s, ws, F); !st.ok) {
        out.status = st;
        return out;
    }
    out.residual = ws.vdot.size() > 0 ? ws.vdot.cwiseAbs().maxCoeff() : 0.0;
    out.force = out.N.transpose() * F;

    // K = −∂f/∂z and C = −∂f/∂ż by central differences.
    const double size = mechanismSize(model, s);
    out.K.resize(f, f);
    if (withDamping) out.C.resize(f, f);
    State moved;
    Eigen::VectorXd Fplus, Fminus;
    for (Eigen::Index j = 0; j < f; ++j) {
        const double h = stepAlong(out.N.col(j), size, model.bodyCount());
        for (int side : {1, -1}) {
            const Eigen::VectorXd z = Eigen::VectorXd::Unit(f, j) * (side * h);
            if (Status st = displace(model, s, out.N, z, ws, moved); !st.ok) {
                out.status = st;
                return out;
            }
            if (Status st = netForce(model, moved, ws, side > 0 ? Fplus : Fminus); !st.ok) {
                out.status = st;
                return out;
            }
        }
        out.K.col(j) = -out.N.transpose() * (Fplus - Fminus) / (2.0 * h);
        if (!withDamping) continue;
        for (int side : {1, -1}) {
            moved = s;
            moved.v = out.N.col(j) * (side * h);
            if (Status st = netForce(model, moved, ws, side > 0 ? Fplus : Fminus); !st.ok) {
                out.status = st;
                return out;
            }
        }
        out.C.col(j) = -out.N.transpose() * (Fplus - Fminus) / (2.0 * h);
    }
    out.stiffnessScale =
        std::max(f > 0 ? out.K.cwiseAbs().maxCoeff() : 0.0, model.gravity.norm() / size);
    return out;
}

}  // namespace engine
