#include "engine/contact/contact_solver.h"
#include "engine/model/layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace engine::contact {
namespace {

bool dense(const ContactProblem& p) {
    return p.U.size() > 0;
}

// v += u_r dx for row r of contact index ci.
void applyImpulse(const ContactProblem& p, std::size_t ci, int r, double dx, Eigen::VectorXd& v) {
    if (dx == 0.0) return;
    if (dense(p)) {
        v.noalias() += p.U.col(static_cast<Eigen::Index>(3 * ci) + r) * dx;
        return;
    }
    const ContactRows& c = p.contacts[ci];
    if (c.bodyA >= 0) layout::twist(v, c.bodyA) += c.MinvJ[r][0] * dx;
    if (c.bodyB >= 0) layout::twist(v, c.bodyB) += c.MinvJ[r][1] * dx;
}

// Delassus entry J_r · u_s of one contact.
double delassus(const ContactProblem& p, std::size_t ci, int r, int s) {
    const ContactRows& c = p.contacts[ci];
    if (dense(p)) {
        double w = 0.0;
        const auto u = p.U.col(static_cast<Eigen::Index>(3 * ci) + s);
        if (c.bodyA >= 0) w += c.J[r][0].dot(layout::twist(u, c.bodyA));
        if (c.bodyB >= 0) w += c.J[r][1].dot(layout::twist(u, c.bodyB));
        return w;
    }
    double w = 0.0;
    if (c.bodyA >= 0) w += c.J[r][0].dot(c.MinvJ[s][0]);
    if (c.bodyB >= 0) w += c.J[r][1].dot(c.MinvJ[s][1]);
    return w;
}

// Friction impulses (β1, β2) limited to μz: each within ±μz (box) or in the polygon (cone).
Eigen::Vector2d limitFriction(const ContactProblem& p, const ContactRows& c,
                              const Eigen::Vector2d& beta, double limit) {
    if (p.friction == FrictionModel::Box || c.boxFriction)
        return {std::clamp(beta.x(), -limit, limit), std::clamp(beta.y(), -limit, limit)};
    return projectOntoPolygon(beta, limit, p.coneFacets);
}

}  // namespace

Eigen::Vector2d projectOntoPolygon(const Eigen::Vector2d& p, double R, int facets) {
    if (R <= 0.0) return Eigen::Vector2d::Zero();
    const double step = 2.0 * kPi / facets;
    const double apothem = R * std::cos(0.5 * step);
    // Inside when within every edge's half-plane (edge normals half-way between vertices).
    bool inside = true;
    for (int k = 0; k < facets && inside; ++k) {
        const double a = (k + 0.5) * step;
        inside = p.x() * std::cos(a) + p.y() * std::sin(a) <= apothem;
    }
    if (inside) return p;
    Eigen::Vector2d best = Eigen::Vector2d::Zero();
    double bestDistance = std::numeric_limits<double>::infinity();
    for (int k = 0; k < facets; ++k) {
        const Eigen::Vector2d a(R * std::cos(k * step), R * std::sin(k * step));
        const Eigen::Vector2d b(R * std::cos((k + 1) * step), R * std::sin((k + 1) * step));
        const Eigen::Vector2d e = b - a;
        const double s = std::clamp((p - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
        const Eigen::Vector2d onEdge = a + s * e;
        const double d = (p - onEdge).squaredNorm();
        if (d < bestDistance) {
            bestDistance = d;
            best = onEdge;
        }
    }
    return best;
}

ContactSolveReport solvePgs(ContactProblem& p, Eigen::VectorXd& v, int maxIterations,
                            double tolerance) {
    const std::size_t n = p.contacts.size();
    ContactSolveReport report;
    if (n == 0) return report;
    // Jointed bodies (dense responses u over every body): the sweeps run on the rows'
    // velocities w = J v, kept as w += W_r dx with the Delassus matrix W = J U (3n × 3n, formed
    // once), instead of on v (a column of U per impulse over every body's velocities); v follows
    // once at the end, v += U x.
    const bool rowSpace = dense(p);
    const Eigen::Index rows = static_cast<Eigen::Index>(3 * n);
    Eigen::MatrixXd W;
    Eigen::VectorXd w;
    if (rowSpace) {
        W.resize(rows, rows);
        w.resize(rows);
        for (std::size_t ci = 0; ci < n; ++ci) {
            const ContactRows& c = p.contacts[ci];
            for (int r = 0; r < 3; ++r) {
                const Eigen::Index i = static_cast<Eigen::Index>(3 * ci) + r;
                w(i) = rowVelocity(c, r, v);
                // W's row: the row's six entries per body times U's six rows of that body.
                auto Wi = W.row(i);
                Wi.setZero();
                if (c.bodyA >= 0 && !c.J[r][0].isZero(0.0))
                    Wi.noalias() += c.J[r][0].transpose() * p.U.middleRows(6 * c.bodyA, 6);
                if (c.bodyB >= 0 && !c.J[r][1].isZero(0.0))
                    Wi.noalias() += c.J[r][1].transpose() * p.U.middleRows(6 * c.bodyB, 6);
            }
        }
    }
    // Row r of contact ci: its velocity, and an impulse dx along it.
    auto velocity = [&](const ContactRows& c, std::size_t ci, int r) {
        return rowSpace ? w(static_cast<Eigen::Index>(3 * ci) + r) : rowVelocity(c, r, v);
    };
    auto push = [&](std::size_t ci, int r, double dx) {
        if (!rowSpace) return applyImpulse(p, ci, r, dx, v);
        if (dx != 0.0) w.noalias() += W.col(static_cast<Eigen::Index>(3 * ci) + r) * dx;
    };

    // Per contact: the normal row's diagonal, and for friction the tangent block's diagonal
    // (box: exact per-row Gauss–Seidel) or its largest eigenvalue (cone: a projected step of
    // 1/λmax on the pair, whose fixed point is the maximal-dissipation solution).
    struct Local {
        double invNormal = 0.0;
        double invTangent[2] = {0.0, 0.0};
        double coneStep = 0.0;
        double Wn = 0.0, Wt[2] = {0.0, 0.0};
    };
    std::vector<Local> local(n);
    for (std::size_t ci = 0; ci < n; ++ci) {
        ContactRows& c = p.contacts[ci];
        Local& l = local[ci];
        l.Wn = delassus(p, ci, 0, 0) + c.compliance;
        l.invNormal = l.Wn > 0.0 ? 1.0 / l.Wn : 0.0;
        const double w11 = delassus(p, ci, 1, 1), w22 = delassus(p, ci, 2, 2),
                     w12 = delassus(p, ci, 1, 2);
        l.Wt[0] = w11;
        l.Wt[1] = w22;
        l.invTangent[0] = w11 > 0.0 ? 1.0 / w11 : 0.0;
        l.invTangent[1] = w22 > 0.0 ? 1.0 / w22 : 0.0;
        const double mean = 0.5 * (w11 + w22), half = 0.5 * (w11 - w22);
        const double lambdaMax = mean + std::sqrt(half * half + w12 * w12);
        l.coneStep = lambdaMax > 0.0 ? 1.0 / lambdaMax : 0.0;

        // Warm start, within the limits.
        c.impulse[0] = std::max(0.0, c.impulse[0]);
        const Eigen::Vector2d beta =
            limitFriction(p, c, {c.impulse[1], c.impulse[2]}, c.friction * c.impulse[0] + c.bound);
        c.impulse[1] = beta.x();
        c.impulse[2] = beta.y();
        for (int r = 0; r < 3; ++r) push(ci, r, c.impulse[r]);
    }
    // The velocities v⁺ for the impulses found (row space: once, at the end; v holds none of
    // them, the warm start's included).
    auto finish = [&] {
        if (!rowSpace) return;
        Eigen::VectorXd x(rows);
        for (std::size_t ci = 0; ci < n; ++ci)
            for (int r = 0; r < 3; ++r)
                x(static_cast<Eigen::Index>(3 * ci) + r) = p.contacts[ci].impulse[r];
        v.noalias() += p.U * x;
    };

    // Sweeps alternate direction (symmetric Gauss–Seidel): an impulse travels through a whole
    // stack in one pair of sweeps, up and down, instead of one contact per sweep.
    // Nonsmooth nonlinear conjugate gradients (Silcowitz, Niebe & Erleben 2010) on top of the
    // sweeps: each sweep's change of the impulses is a (negative) gradient, and a momentum
    // term along the previous direction is added while the changes keep shrinking.
    const Eigen::Index m = static_cast<Eigen::Index>(3 * n);
    Eigen::VectorXd change(m), direction = Eigen::VectorXd::Zero(m);
    double lastChange = 0.0;
    for (int sweep = 1; sweep <= maxIterations; ++sweep) {
        double largest = 0.0;
        const bool forward = sweep % 2 == 1;
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t ci = forward ? k : n - 1 - k;
            ContactRows& c = p.contacts[ci];
            const Local& l = local[ci];
            // Normal: z ← max(0, z − (J_n v + σz − target) / (W_nn + σ)).
            const double wn = velocity(c, ci, 0) + c.compliance * c.impulse[0] - c.target;
            const double z = std::max(0.0, c.impulse[0] - wn * l.invNormal);
            const double dz = z - c.impulse[0];
            push(ci, 0, dz);
            c.impulse[0] = z;
            change(static_cast<Eigen::Index>(3 * ci)) = dz;
            largest = std::max(largest, std::abs(dz) * l.Wn);

            const double limit = c.friction * z + c.bound;
            if (p.friction == FrictionModel::Box || c.boxFriction) {
                for (int r = 1; r < 3; ++r) {
                    const double w = velocity(c, ci, r);
                    const double beta =
                        std::clamp(c.impulse[r] - w * l.invTangent[r - 1], -limit, limit);
                    const double db = beta - c.impulse[r];
                    push(ci, r, db);
                    c.impulse[r] = beta;
                    change(static_cast<Eigen::Index>(3 * ci) + r) = db;
                    largest = std::max(largest, std::abs(db) * l.Wt[r - 1]);
                }
            } else {
                const Eigen::Vector2d w(velocity(c, ci, 1), velocity(c, ci, 2));
                const Eigen::Vector2d old(c.impulse[1], c.impulse[2]);
                const Eigen::Vector2d beta =
                    projectOntoPolygon(old - l.coneStep * w, limit, p.coneFacets);
                for (int r = 1; r < 3; ++r) {
                    const double db = beta(r - 1) - old(r - 1);
                    push(ci, r, db);
                    c.impulse[r] = beta(r - 1);
                    change(static_cast<Eigen::Index>(3 * ci) + r) = db;
                    largest = std::max(largest, std::abs(db) * l.Wt[r - 1]);
                }
            }
        }
        report.iterations = sweep;
        report.residual = largest;
        if (largest <= tolerance) {
            finish();
            return report;
        }

        const double norm = change.squaredNorm();
        const double beta = lastChange > 0.0 ? norm / lastChange : 0.0;
        lastChange = norm;
        if (sweep == 1 || beta > 1.0) {
            direction = change;  // restart along the sweep's change
        } else {
            // x += β p (velocities follow), then p ← β p + change.
            for (std::size_t ci = 0; ci < n; ++ci) {
                for (int r = 0; r < 3; ++r) {
                    const double dx = beta * direction(static_cast<Eigen::Index>(3 * ci) + r);
                    if (dx == 0.0) continue;
                    p.contacts[ci].impulse[r] += dx;
                    push(ci, r, dx);
                }
            }
            direction = beta * direction + change;
        }
    }
    report.converged = false;
    finish();
    return report;
}

bool lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd& x, int maxPivots,
           int* pivots) {
    const Eigen::Index n = q.size();
    x = Eigen::VectorXd::Zero(n);
    if (pivots) *pivots = 0;
    if (n == 0 || q.minCoeff() >= 0.0) return true;

    // Tableau of w − M x − 1 z0 = q over the variables w (0..n−1), x (n..2n−1), z0 (2n).
    const Eigen::Index columns = 2 * n + 1;
    Eigen::MatrixXd T(n, columns);
    T.leftCols(n).setIdentity();
    T.middleCols(n, n) = -M;
    T.col(2 * n).setConstant(-1.0);
    Eigen::VectorXd b = q;
    std::vector<Eigen::Index> basis(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) basis[static_cast<std::size_t>(i)] = i;

    auto pivot = [&](Eigen::Index row, Eigen::Index column) {
        const double p = T(row, column);
        T.row(row) /= p;
        b(row) /= p;
        for (Eigen::Index i = 0; i < n; ++i) {
            if (i == row) continue;
            const double f = T(i, column);
            if (f == 0.0) continue;
            T.row(i) -= f * T.row(row);
            b(i) -= f * b(row);
        }
        basis[static_cast<std::size_t>(row)] = column;
    };

    // z0 enters where q is most negative; every basic variable is then non-negative.
    Eigen::Index row = 0;
    b.minCoeff(&row);
    Eigen::Index leaving = basis[static_cast<std::size_t>(row)];
    pivot(row, 2 * n);
    const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
    for (int k = 1; k <= maxPivots; ++k) {
        if (pivots) *pivots = k;
        // The complement of the variable that just left enters.
        const Eigen::Index entering = leaving < n ? leaving + n : leaving - n;
        // Ratio test: the first basic variable to reach zero as `entering` grows; ties go to
        // z0 (which ends the method), then to the lowest index.
        Eigen::Index best = -1;
        double bestRatio = std::numeric_limits<double>::infinity();
        for (Eigen::Index i = 0; i < n; ++i) {
            const double a = T(i, entering);
            if (a <= 1e-12) continue;
            const double ratio = std::max(0.0, b(i)) / a;
            const bool isZ0 = basis[static_cast<std::size_t>(i)] == 2 * n;
            if (ratio < bestRatio - 1e-12 * scale || (ratio <= bestRatio + 1e-12 * scale && isZ0)) {
                bestRatio = ratio;
                best = i;
            }
        }
        if (best < 0) return false;  // ray termination
        leaving = basis[static_cast<std::size_t>(best)];
        pivot(best, entering);
        if (leaving == 2 * n) {
            for (Eigen::Index i = 0; i < n; ++i) {
                const Eigen::Index var = basis[static_cast<std::size_t>(i)];
                if (var >= n && var < 2 * n) x(var - n) = std::max(0.0, b(i));
            }
            return true;
        }
    }
    return false;
}

ContactSolveReport solveLemke(ContactProblem& p, Eigen::VectorXd& v) {
    ContactSolveReport report;
    const std::size_t nc = p.contacts.size();
    if (nc == 0) return report;

    // Friction directions (coefficients on t1, t2) and groups: box friction has two groups
    // (±t1, ±t2) per contact, the cone one group of K directions.
    struct Direction {
        std::size_t contact;
        double c1, c2;
        int group;
    };
    std::vector<Direction> directions;
    std::vector<std::size_t> groupContact;
    for (std::size_t ci = 0; ci < nc; ++ci) {
        const ContactRows& c = p.contacts[ci];
        if (c.friction <= 0.0 && c.bound <= 0.0) continue;  // frictionless: no directions
        if (p.friction == FrictionModel::Box || c.boxFriction) {
            for (int axis = 0; axis < 2; ++axis) {
                const int g = static_cast<int>(groupContact.size());
                groupContact.push_back(ci);
                directions.push_back({ci, axis == 0 ? 1.0 : 0.0, axis == 1 ? 1.0 : 0.0, g});
                directions.push_back({ci, axis == 0 ? -1.0 : 0.0, axis == 1 ? -1.0 : 0.0, g});
            }
        } else {
            const int g = static_cast<int>(groupContact.size());
            groupContact.push_back(ci);
            for (int k = 0; k < p.coneFacets; ++k) {
                const double a = 2.0 * kPi * k / p.coneFacets;
                directions.push_back({ci, std::cos(a), std::sin(a), g});
            }
        }
    }
    const Eigen::Index nd = static_cast<Eigen::Index>(directions.size());
    const Eigen::Index ng = static_cast<Eigen::Index>(groupContact.size());
    const Eigen::Index nz = static_cast<Eigen::Index>(nc);
    const Eigen::Index n = nz + nd + ng;

    // Delassus blocks per pair of contacts (3 × 3 in n, t1, t2), from the responses.
    const Eigen::Index nv = v.size();
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(3 * nc), nv);
    Eigen::MatrixXd U(nv, static_cast<Eigen::Index>(3 * nc));
    for (std::size_t ci = 0; ci < nc; ++ci) {
        const ContactRows& c = p.contacts[ci];
        for (int r = 0; r < 3; ++r) {
            const Eigen::Index row = static_cast<Eigen::Index>(3 * ci) + r;
            if (c.bodyA >= 0) layout::twist(A.row(row), c.bodyA) += c.J[r][0].transpose();
            if (c.bodyB >= 0) layout::twist(A.row(row), c.bodyB) += c.J[r][1].transpose();
            if (dense(p)) {
                U.col(row) = p.U.col(row);
            } else {
                U.col(row).setZero();
                if (c.bodyA >= 0) layout::twist(U.col(row), c.bodyA) += c.MinvJ[r][0];
                if (c.bodyB >= 0) layout::twist(U.col(row), c.bodyB) += c.MinvJ[r][1];
            }
        }
    }
    const Eigen::MatrixXd W = A * U;
    const Eigen::VectorXd Av = A * v;

    // Rows of the LCP in terms of the contact rows: normal i → 3i; direction d → its
    // combination of 3c+1 and 3c+2.
    auto combination = [&](Eigen::Index k) {
        Eigen::VectorXd e = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(3 * nc));
        if (k < nz) {
            e(3 * k) = 1.0;
        } else {
            const Direction& d = directions[static_cast<std::size_t>(k - nz)];
            e(static_cast<Eigen::Index>(3 * d.contact) + 1) = d.c1;
            e(static_cast<Eigen::Index>(3 * d.contact) + 2) = d.c2;
        }
        return e;
    };
    Eigen::MatrixXd E(static_cast<Eigen::Index>(3 * nc), nz + nd);
    for (Eigen::Index k = 0; k < nz + nd; ++k) E.col(k) = combination(k);

    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n);
    M.topLeftCorner(nz + nd, nz + nd) = E.transpose() * W * E;
    q.head(nz + nd) = E.transpose() * Av;
    for (std::size_t ci = 0; ci < nc; ++ci) {
        M(static_cast<Eigen::Index>(ci), static_cast<Eigen::Index>(ci)) +=
            p.contacts[ci].compliance;
        q(static_cast<Eigen::Index>(ci)) -= p.contacts[ci].target;
    }
    for (Eigen::Index d = 0; d < nd; ++d) {
        const Eigen::Index g = nz + nd + directions[static_cast<std::size_t>(d)].group;
        M(nz + d, g) = 1.0;   // λ_g + J_d v⁺ ≥ 0 ⟂ β_d
        M(g, nz + d) = -1.0;  // μ z − Σ β ≥ 0 ⟂ λ_g
    }
    for (Eigen::Index g = 0; g < ng; ++g) {
        const std::size_t ci = groupContact[static_cast<std::size_t>(g)];
        M(nz + nd + g, static_cast<Eigen::Index>(ci)) = p.contacts[ci].friction;
        q(nz + nd + g) = p.contacts[ci].bound;  // μ z + bound − Σ β ≥ 0
    }

    Eigen::VectorXd x;
    int pivots = 0;
    report.converged = lemke(M, q, x, static_cast<int>(50 * n + 100), &pivots);
    report.iterations = pivots;
    if (!report.converged) x.setZero(n);

    const Eigen::VectorXd impulses = E * x.head(nz + nd);
    for (std::size_t ci = 0; ci < nc; ++ci)
        for (int r = 0; r < 3; ++r)
            p.contacts[ci].impulse[r] = impulses(static_cast<Eigen::Index>(3 * ci) + r);
    v += U * impulses;
    return report;
}

}  // namespace engine::contact
