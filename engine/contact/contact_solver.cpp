#include "engine/contact/contact_solver.h"
#include "engine/model/layout.h"
#include "engine/solver/block_cholesky.h"
#include "engine/solver/worker_pool.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

namespace engine::contact {
namespace {

bool dense(const ContactProblem& p) {
    return !p.U.empty();
}

// A part's velocity (ω in its frame, then ẋ) in a cache line of its own.
struct alignas(64) PaddedTwist {
    double value[8];
};
Eigen::Map<Vec6> twistOf(std::vector<PaddedTwist>& v, int b) {
    return Eigen::Map<Vec6>(v[static_cast<std::size_t>(b)].value);
}
double rowVelocity(const ContactRows& c, int r, std::vector<PaddedTwist>& v) {
    double w = 0.0;
    if (c.bodyA >= 0) w += c.J[r][0].dot(twistOf(v, c.bodyA));
    if (c.bodyB >= 0) w += c.J[r][1].dot(twistOf(v, c.bodyB));
    return w;
}
// v += M⁻¹J_rᵀ dx for row r of free-body contact c.
void applyImpulse(const ContactRows& c, int r, double dx, std::vector<PaddedTwist>& v) {
    if (dx == 0.0) return;
    if (c.bodyA >= 0) twistOf(v, c.bodyA) += c.MinvJ(r, 0) * dx;
    if (c.bodyB >= 0) twistOf(v, c.bodyB) += c.MinvJ(r, 1) * dx;
}

// How a contact's rows are swept (solvePgs): a free island's on v (0); a row-space island's on
// the rows' velocities w, or on v through the responses' columns.
constexpr char kOnRows = 1, kOnVelocities = 2;

// Delassus entry J_r · u_s of one contact.
double delassus(const ContactProblem& p, std::size_t ci, int r, int s) {
    const ContactRows& c = p.contacts[ci];
    if (dense(p)) {
        double w = 0.0;
        const std::size_t j = 3 * ci + static_cast<std::size_t>(s);
        if (c.bodyA >= 0) w += c.J[r][0].dot(p.U.at(j, c.bodyA));
        if (c.bodyB >= 0) w += c.J[r][1].dot(p.U.at(j, c.bodyB));
        return w;
    }
    double w = 0.0;
    if (c.bodyA >= 0) w += c.J[r][0].dot(c.MinvJ(s, 0));
    if (c.bodyB >= 0) w += c.J[r][1].dot(c.MinvJ(s, 1));
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

Vec6 RowResponses::at(std::size_t j, int b) const {
    const auto first = body.begin() + static_cast<std::ptrdiff_t>(start[j]);
    const auto last = body.begin() + static_cast<std::ptrdiff_t>(start[j + 1]);
    const auto it = std::lower_bound(first, last, b);
    return it != last && *it == b ? twist[static_cast<std::size_t>(it - body.begin())]
                                  : Vec6::Zero().eval();
}

void RowResponses::assign(const Eigen::MatrixXd& U) {
    clear();
    const Eigen::Index bodies = U.rows() / 6;
    for (Eigen::Index j = 0; j < U.cols(); ++j) {
        beginColumn();
        for (Eigen::Index b = 0; b < bodies; ++b) {
            const auto t = U.col(j).segment<6>(6 * b);
            if (!t.isZero(0.0)) add(static_cast<int>(b), t);
        }
    }
}

void RowResponses::multiplyAdd(const Eigen::VectorXd& x, Eigen::VectorXd& v) const {
    for (std::size_t j = 0; j < columns(); ++j) {
        const double xj = x(static_cast<Eigen::Index>(j));
        if (xj == 0.0) continue;
        for (std::size_t e = start[j]; e < start[j + 1]; ++e)
            layout::twist(v, body[e]) += twist[e] * xj;
    }
}

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

namespace {

// A block of the coarse system: row interface, column interface, the 6 × 6 entries.
using CoarseBlock = BlockCholesky6::Entry;

using Mat6 = Eigen::Matrix<double, 6, 6>;

// The coarse system's storage and factorisation, kept between solves (a step's contact solve
// and the next one's) on each thread: no allocation, and no new ordering or pattern of the
// factor while the contact graph is unchanged.
struct CoarseWork {
    std::vector<CoarseBlock> blocks, sorted;
    std::vector<std::size_t> order;
    // The interfaces' elimination order (newOf[k]: interface k's place), computed on the graph
    // of interfaces — a sixth of the scalar system's side, 1/36 of its entries — for the block
    // pattern `orderedPattern` (each block's row and column, in column order).
    std::vector<int> newOf;
    std::vector<std::pair<int, int>> pattern, orderedPattern;
    // The blocks below the diagonal in the elimination order (by column, then row), and those
    // the factor was analysed for.
    std::vector<std::pair<int, int>> lower, factoredPattern;
    BlockCholesky6 factor;
};

// Coarse corrections given back are tried again (every kCoarseEvery sweeps) on islands of up to
// this many interfaces (pairs of parts in contact); on larger ones the first ends them.
constexpr std::size_t kCoarseRetryUpTo = 64;
// Islands with biased rows (ContactRows::bias): the tolerance of the velocities the positions
// advance with, relative to v⁺'s (1e-4 m/s by default: 0.1 µm a millisecond step, a hundredth
// of the slop), and on a mechanism's island the sweeps that find them from v⁺, at most.
constexpr double kPositionTolerance = 100.0;
constexpr int kPositionSweeps = 8;
// Where joints couple the rows (a dense coarse system), corrections on up to this many
// interfaces, (6m)³/3 for m of them; past kDenseRetryUpTo, one given back ends them for the
// solve. (Retried every few sweeps, a chain of 30 links dragged through a pile, an island of ~60
// interfaces, spent 15 Mflop on each and had nearly all given back: 2.5× the step. Tried once a
// solve, on 32–64 interfaces 9 of its 4,182 corrections were kept in 4 s, 16 % of its step for
// nothing; chains on a floor keep 167 of their 629 on 16–31, walking robots, all under 16,
// 39,676 of 92,797.)
constexpr Eigen::Index kDenseCoarseUpTo = 32;
// Newton steps (solvePgs's newtonStep): on islands whose rows couple through joints, of up to
// this many contacts (a dense solve of 3 rows each: the Go1 and the iCub on a floor, 20–28;
// ANYmal C's islands of 32–44 took it for 1.7× the step and few fewer unconverged steps),
// every kNewtonEvery sweeps that have not converged (in place of that sweep's coarse
// correction), at most kNewtonIterations iterations each, damped by kNewtonDamping of the
// island's largest diagonal.
constexpr std::size_t kNewtonUpTo = 30;
// The island's size up to which the Newton step is taken where the rows' factors in the rates
// are given (ContactProblem::rowsInRates): its system is then the rates', not the rows'.
constexpr std::size_t kNewtonInRatesUpTo = 64;
constexpr int kNewtonEvery = 2 * kCoarseEvery;
constexpr int kNewtonIterations = 30;
constexpr double kNewtonDamping = 1e-4;
constexpr std::size_t kDenseRetryUpTo = 16;
// Free parts: a coarse correction is not made when building or factorising its system would
// cost more than every sweep the solve may take (a sweep: ~150 flops a row), nor when its
// interfaces share parts with more than kCoarseBlocksPer others on average (parts started
// inside one another: 100 boxes in one place touch 99 each, a system of 30,000 unknowns whose
// factor filled in to 3.6 GB and took minutes a step; a pile's interface has about ten).
constexpr double kSweepFlopsPerRow = 150.0;
constexpr double kFlopsPerBlock = 500.0;
constexpr double kCoarseBlocksPer = 24.0;
// Islands solved on the threads: tasks of about n / (kIslandTasks threads) of the n contacts
// each (at least 32), consecutive islands in each. A thread that has ended its own block of
// tasks helps with what is left of the others', so the solve waits at most about one task at
// its end: with pile-400's 25 columns of 64 contacts, one column rather than two.
constexpr std::size_t kIslandTasks = 16;

// Minimum-degree order of the m interfaces whose coupling blocks (row ≥ column) are `pattern`.
void orderInterfaces(const std::vector<std::pair<int, int>>& pattern, int m,
                     std::vector<int>& newOf) {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(pattern.size());
    for (const auto& [row, col] : pattern) entries.emplace_back(row, col, 1.0);
    Eigen::SparseMatrix<double> graph(m, m);
    graph.setFromTriplets(entries.begin(), entries.end());
    Eigen::AMDOrdering<int>::PermutationType eliminated;  // k-th eliminated: interface indices()[k]
    Eigen::AMDOrdering<int>()(graph.selfadjointView<Eigen::Lower>(), eliminated);
    newOf.assign(static_cast<std::size_t>(m), 0);
    for (int k = 0; k < m; ++k) newOf[static_cast<std::size_t>(eliminated.indices()[k])] = k;
}

CoarseWork& coarseWork() {
    thread_local CoarseWork work;
    return work;
}

// Whether contact c's friction impulse lies strictly inside its limit (the contact sticks), by a
// relative margin.
bool stickingFriction(const ContactProblem& p, const ContactRows& c, double limit) {
    if (!(limit > 0.0)) return false;
    const double inner = (1.0 - 1e-6) * limit;
    if (p.friction == FrictionModel::Box || c.boxFriction)
        return std::abs(c.impulse[1]) < inner && std::abs(c.impulse[2]) < inner;
    const Eigen::Vector2d beta(c.impulse[1], c.impulse[2]);
    return projectOntoPolygon(beta, inner, p.coneFacets) == beta;
}

}  // namespace

ContactSolveReport solvePgs(ContactProblem& p, Eigen::VectorXd& v, int maxIterations,
                            double tolerance, bool coarse, Eigen::VectorXd* positionVelocity) {
    const std::size_t n = p.contacts.size();
    ContactSolveReport report;
    if (n == 0) return report;
    // Jointed bodies (responses u through the joints): the islands a mechanism is in are swept
    // in row space, their rows coupled through the responses. Each such island is swept the
    // cheaper of two ways (the same iterates, rounded differently):
    // - on the rows' velocities w = J v, kept as w += W_r dx with the Delassus matrix W = J U
    //   (its nonzero entries only): a push touches every row its response moves (a robot's few
    //   foot contacts: a few dozen numbers); v follows once at the end, v += U x;
    // - on v, a push moving every body its response does (v += U_r dx: six numbers per body) and
    //   a row's velocity read from its two bodies (J_r v): a chain of 30 links dragged through a
    //   pile has ~765 rows in one island and its pushes move ~30 links, ~4× fewer numbers.
    // The other islands (free parts only, whose u is M⁻¹Jᵀ) are swept on v as without joints.
    const bool responses = dense(p);
    const Eigen::Index rows = static_cast<Eigen::Index>(3 * n);
    // W is symmetric (J M̃⁻¹ Jᵀ) and sparse: column i, Uᵀ J_iᵀ, is U's six rows of each body of
    // row i times the row's six entries there, nonzero only at the rows whose impulses move that
    // body (a free part's own contacts; every contact of a mechanism it is jointed into). Kept by
    // columns as (row, value) lists — the entries a dense W would hold, the zeros left out.
    // (kept between solves on each thread: no allocation in a steady run)
    // (per body: the rows moving it, each with its twist's place in p.U)
    struct Move {
        Eigen::Index row;
        std::size_t entry;
    };
    thread_local std::vector<std::vector<Move>> movesStore;
    thread_local std::vector<Eigen::Index> colStartStore, colRowStore;
    thread_local std::vector<double> colValueStore;
    std::vector<std::vector<Move>>& moves = movesStore;
    std::vector<Eigen::Index>&colStart = colStartStore, &colRow = colRowStore;
    std::vector<double>& colValue = colValueStore;
    Eigen::VectorXd w;
    if (responses) {
        w.resize(rows);
        const std::size_t bodies = static_cast<std::size_t>(v.size() / 6);
        if (moves.size() < bodies) moves.resize(bodies);
        for (std::size_t b = 0; b < bodies; ++b) moves[b].clear();
        // (column by column; each body's rows come in order)
        for (Eigen::Index j = 0; j < rows; ++j) {
            const auto col = static_cast<std::size_t>(j);
            for (std::size_t e = p.U.start[col]; e < p.U.start[col + 1]; ++e)
                if (!p.U.twist[e].isZero(0.0))
                    moves[static_cast<std::size_t>(p.U.body[e])].push_back({j, e});
        }
    }
    // Row space: each contact's place in its island (an island's rows are kept by place).
    thread_local std::vector<std::size_t> placeStore;
    std::vector<std::size_t>& placeOf = placeStore;
    auto placed = [&](Eigen::Index row) {
        const auto ci = static_cast<std::size_t>(row / 3);
        return static_cast<Eigen::Index>(3 * placeOf[ci]) + row % 3;
    };

    // The islands: contacts joined through the parts they touch (the ground joins nothing) and,
    // jointed parts (row space), through every part their rows' responses move: W couples two
    // rows only through such a part, so a mechanism's contacts are one island and the free
    // parts beside it make their own.
    thread_local std::vector<std::vector<std::size_t>> islandsStore;
    thread_local std::vector<std::vector<int>> islandPartsStore;
    std::vector<std::vector<std::size_t>>& islands = islandsStore;
    std::vector<std::vector<int>>& islandParts = islandPartsStore;
    std::size_t count = 0;  // (the vectors' first `count` are this solve's, reused)
    auto newIsland = [&] {
        if (count == islands.size()) {
            islands.emplace_back();
            islandParts.emplace_back();
        }
        islands[count].clear();
        islandParts[count].clear();
        return count++;
    };
    thread_local std::vector<std::size_t> idleStore;
    std::vector<std::size_t>& idle = idleStore;
    idle.clear();
    thread_local std::vector<int> parent, islandOf;
    thread_local std::vector<std::array<int, 2>> ends;  // per contact: bodyA, bodyB
    thread_local std::vector<char> listed;
    // The islands given (ContactProblem::islandStart): each described by its own task
    // (describeIsland), in the order and with the parts that the search below would give it.
    const bool given = !responses && p.islandStart.size() >= 2 && p.islandStart.front() == 0 &&
                       p.islandStart.back() == n &&
                       std::adjacent_find(p.islandStart.begin(), p.islandStart.end(),
                                          std::greater_equal<>()) == p.islandStart.end();
    // (the rows' factors in the rates, where given whole: the Newton step's system through them)
    const bool inRates = p.rowsInRates && p.rateResponses &&
                         p.rowsInRates->cols() == static_cast<Eigen::Index>(3 * n) &&
                         p.rateResponses->cols() == p.rowsInRates->cols() &&
                         p.rateResponses->rows() == p.rowsInRates->rows();
    const Eigen::Index nv = inRates ? p.rowsInRates->rows() : 0;
    if (p.writeRows && !given) {  // (every row first: the islands are found from them)
        p.writeRows(0, n);
        p.writeRows = nullptr;
    }
    if (given) {
        count = p.islandStart.size() - 1;
        while (islands.size() < count) {
            islands.emplace_back();
            islandParts.emplace_back();
        }
    } else {
        const int bodies = static_cast<int>(v.size() / 6);
        parent.resize(static_cast<std::size_t>(bodies));
        for (int b = 0; b < bodies; ++b) parent[static_cast<std::size_t>(b)] = b;
        auto root = [&](int b) {
            while (parent[static_cast<std::size_t>(b)] != b)
                b = parent[static_cast<std::size_t>(b)] =
                    parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(b)])];
            return b;
        };
        auto join = [&](int x, int y) {
            if (x < 0 || y < 0) return;
            const int a = root(x), b = root(y);
            if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
        };
        // (each contact's two bodies read once: a contact's rows take some 450 bytes, and each
        // pass below would read a cache line of them for two numbers)
        ends.resize(n);
        for (std::size_t ci = 0; ci < n; ++ci)
            ends[ci] = {p.contacts[ci].bodyA, p.contacts[ci].bodyB};
        for (const std::array<int, 2>& e : ends) join(e[0], e[1]);
        if (responses)
            for (int b = 0; b < bodies; ++b)
                for (const Move& move : moves[static_cast<std::size_t>(b)]) {
                    const ContactRows& c = p.contacts[static_cast<std::size_t>(move.row / 3)];
                    join(b, c.bodyA >= 0 ? c.bodyA : c.bodyB);
                }
        // Numbered by their first contact, contacts and parts in their order (a part where its
        // island's first contact on it is; a contact's two parts are in one island).
        islandOf.assign(static_cast<std::size_t>(bodies), -1);
        listed.assign(static_cast<std::size_t>(bodies), 0);
        for (std::size_t ci = 0; ci < n; ++ci) {
            const int body = ends[ci][0] >= 0 ? ends[ci][0] : ends[ci][1];
            if (body < 0) {  // (two ground parts: no rows to solve)
                idle.push_back(ci);
                continue;
            }
            int& k = islandOf[static_cast<std::size_t>(root(body))];
            if (k < 0) k = static_cast<int>(newIsland());
            const auto island = static_cast<std::size_t>(k);
            islands[island].push_back(ci);
            for (const int b : ends[ci])
                if (b >= 0 && !listed[static_cast<std::size_t>(b)]) {
                    listed[static_cast<std::size_t>(b)] = 1;
                    islandParts[island].push_back(b);
                }
        }
        if (responses) {
            placeOf.resize(n);
            for (std::size_t k = 0; k < count; ++k)
                for (std::size_t at = 0; at < islands[k].size(); ++at) placeOf[islands[k][at]] = at;
        }
    }
    // Which contacts are swept in row space: every contact of an island with one whose
    // responses are not the free parts' M⁻¹Jᵀ (a mechanism's, or a part jointed to the ground).
    thread_local std::vector<char> rowOfStore;
    std::vector<char>& rowOf = rowOfStore;
    rowOf.assign(n, 0);
    if (responses) {
        // (contact ci's three columns each empty or its parts' M⁻¹Jᵀ exactly, in body order)
        auto free = [&](std::size_t ci) {
            const ContactRows& c = p.contacts[ci];
            if (c.bodyA == c.bodyB) return false;
            const int lo = std::min(c.bodyA, c.bodyB), hi = std::max(c.bodyA, c.bodyB);
            for (int r = 0; r < 3; ++r) {
                const std::size_t j = 3 * ci + static_cast<std::size_t>(r);
                std::size_t e = p.U.start[j];
                const std::size_t last = p.U.start[j + 1];
                if (e == last) continue;
                for (const int body : {lo, hi}) {
                    if (body < 0) continue;
                    const int side = body == c.bodyA ? 0 : 1;
                    if (e == last || p.U.body[e] != body || p.U.twist[e] != c.MinvJ(r, side))
                        return false;
                    ++e;
                }
                if (e != last) return false;
            }
            return true;
        };
        for (std::size_t k = 0; k < count; ++k) {
            bool rowSpace = false;
            for (const std::size_t ci : islands[k]) rowSpace = rowSpace || !free(ci);
            for (const std::size_t ci : islands[k]) rowOf[ci] = rowSpace ? kOnRows : 0;
        }
    }
    // Column i = 3 ci + r of W, row by row: visit(row, value) over the union of the rows moving
    // the contact's two bodies, in order (each body's list is); a row moving only one of them
    // has nothing on the other (adding its 0 would change no bit). With `values` false, the
    // rows only (value 0).
    auto walkColumn = [&](std::size_t ci, int r, bool values, auto&& visit) {
        const ContactRows& c = p.contacts[ci];
        const bool onA = c.bodyA >= 0 && !c.J[r][0].isZero(0.0),
                   onB = c.bodyB >= 0 && !c.J[r][1].isZero(0.0);
        static const std::vector<Move> none;
        const std::vector<Move>& a = onA ? moves[static_cast<std::size_t>(c.bodyA)] : none;
        const std::vector<Move>& b = onB ? moves[static_cast<std::size_t>(c.bodyB)] : none;
        for (std::size_t x = 0, y = 0; x < a.size() || y < b.size();) {
            const Eigen::Index j =
                y == b.size() || (x < a.size() && a[x].row <= b[y].row) ? a[x].row : b[y].row;
            double value = 0.0;
            if (x < a.size() && a[x].row == j) {
                if (values) value += p.U.twist[a[x].entry].dot(c.J[r][0]);
                ++x;
            }
            if (y < b.size() && b[y].row == j) {
                if (values) value += p.U.twist[b[y].entry].dot(c.J[r][1]);
                ++y;
            }
            visit(j, value);
        }
    };
    // Each row-space island on w or on v, whichever moves fewer numbers a sweep (above): its
    // pushes' W columns, or six per body of their U columns and twelve for each row's velocity.
    if (responses)
        for (std::size_t k = 0; k < count; ++k) {
            if (!rowOf[islands[k].front()]) continue;
            std::size_t onW = 0, onV = 0;
            for (const std::size_t ci : islands[k])
                for (int r = 0; r < 3; ++r) {
                    walkColumn(ci, r, false, [&](Eigen::Index, double) { ++onW; });
                    const std::size_t j = 3 * ci + static_cast<std::size_t>(r);
                    onV += 12 + 6 * (p.U.start[j + 1] - p.U.start[j]);
                }
            if (onV >= onW) continue;
            for (const std::size_t ci : islands[k]) rowOf[ci] = kOnVelocities;
            // (its parts: every body its rows move, not only those its contacts touch — a
            // chain's links between two contacts; no body is another island's)
            for (const std::size_t ci : islands[k])
                for (std::size_t j = 3 * ci; j < 3 * ci + 3; ++j)
                    for (std::size_t e = p.U.start[j]; e < p.U.start[j + 1]; ++e)
                        if (const int b = p.U.body[e]; !listed[static_cast<std::size_t>(b)]) {
                            listed[static_cast<std::size_t>(b)] = 1;
                            islandParts[k].push_back(b);
                        }
        }
    // The columns of the islands swept on w kept, with their rows' velocities (a chain's island
    // swept on v reads its columns in a coarse correction only, rarely: they are found there,
    // not kept — at ~765 rows of ~765 entries, 9 MB written a step for nothing).
    if (responses) {
        colStart.assign(1, 0);
        colRow.clear();
        colValue.clear();
        for (std::size_t ci = 0; ci < n; ++ci)
            for (int r = 0; r < 3; ++r) {
                if (rowOf[ci] == kOnRows) {
                    w(static_cast<Eigen::Index>(3 * ci) + r) = rowVelocity(p.contacts[ci], r, v);
                    walkColumn(ci, r, true, [&](Eigen::Index j, double value) {
                        colRow.push_back(j);
                        colValue.push_back(value);
                    });
                }
                colStart.push_back(static_cast<Eigen::Index>(colRow.size()));
            }
    }
    // Column i of W: visit(row, value) over its entries.
    auto forEachInColumn = [&](Eigen::Index i, auto&& visit) {
        const auto ci = static_cast<std::size_t>(i / 3);
        if (rowOf[ci] == kOnVelocities) return walkColumn(ci, static_cast<int>(i % 3), true, visit);
        for (Eigen::Index e = colStart[static_cast<std::size_t>(i)];
             e < colStart[static_cast<std::size_t>(i) + 1]; ++e)
            visit(colRow[static_cast<std::size_t>(e)], colValue[static_cast<std::size_t>(e)]);
    };
    // Free parts: the sweeps run on a copy of v with one cache line per part (v has 48 bytes
    // per part, and islands solved at once on several threads would write into one another's
    // lines), vFree likewise. Without joints each island copies its own parts' entries in and
    // out in the task that solves it (on two threads, a pass over every part on the calling
    // thread before and after the islands read and wrote a cache line of the other core's per
    // part); with them, every part's in here and out at the end (finish).
    thread_local std::vector<PaddedTwist> paddedStore, paddedFreeStore;
    std::vector<PaddedTwist>&padded = paddedStore, &paddedFree = paddedFreeStore;
    {
        const std::size_t bodies = static_cast<std::size_t>(v.size() / 6);
        padded.resize(bodies);
        paddedFree.resize(bodies);
        if (responses)
            for (std::size_t b = 0; b < bodies; ++b)
                twistOf(padded, static_cast<int>(b)) = layout::twist(v, static_cast<int>(b));
    }
    // Row r of contact ci: its velocity, and an impulse dx along it (swept on v: into `to`, v
    // or the free velocities a coarse correction measures from).
    auto velocity = [&](const ContactRows& c, std::size_t ci, int r) {
        return rowOf[ci] == kOnRows ? w(static_cast<Eigen::Index>(3 * ci) + r)
                                    : rowVelocity(c, r, padded);
    };
    auto pushInto = [&](std::vector<PaddedTwist>& to, std::size_t ci, int r, double dx) {
        if (!rowOf[ci]) return applyImpulse(p.contacts[ci], r, dx, to);
        if (dx == 0.0) return;
        const std::size_t j = 3 * ci + static_cast<std::size_t>(r);
        for (std::size_t e = p.U.start[j]; e < p.U.start[j + 1]; ++e)
            twistOf(to, p.U.body[e]) += p.U.twist[e] * dx;
    };
    auto push = [&](std::size_t ci, int r, double dx) {
        if (rowOf[ci] != kOnRows) return pushInto(padded, ci, r, dx);
        if (dx != 0.0)
            forEachInColumn(static_cast<Eigen::Index>(3 * ci) + r,
                            [&](Eigen::Index k, double value) { w(k) += value * dx; });
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
    // Contact ci's diagonals into l, and its warm start within the limits, velocities following
    // (by each island for its own contacts, on the thread that solves it).
    auto prepare = [&](std::size_t ci, Local& l) {
        ContactRows& c = p.contacts[ci];
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
    };
    // The velocities v⁺ for the impulses found (row space: once, at the end; v holds none of
    // them, the warm start's included).
    auto finish = [&] {
        if (!responses) return;  // (each island's parts copied out by its task)
        // (the parts of the islands swept on v from their sweeps; the impulses of those swept on
        // w through U)
        Eigen::VectorXd x(rows);
        for (std::size_t k = 0; k < count; ++k) {
            const bool swept = rowOf[islands[k].front()] != kOnRows;
            if (swept)
                for (const int b : islandParts[k]) layout::twist(v, b) = twistOf(padded, b);
            for (const std::size_t ci : islands[k])
                for (int r = 0; r < 3; ++r)
                    x(static_cast<Eigen::Index>(3 * ci) + r) =
                        swept ? 0.0 : p.contacts[ci].impulse[r];
        }
        for (const std::size_t ci : idle)
            for (int r = 0; r < 3; ++r) x(static_cast<Eigen::Index>(3 * ci) + r) = 0.0;
        p.U.multiplyAdd(x, v);
    };

    // What the islands keep per part: each island writes only its own parts' entries, so
    // islands may be solved at once on several threads.
    // (thread_local storage, used through references: the islands' threads use the caller's)
    thread_local std::vector<std::vector<int>> onBodyStore;
    std::vector<std::vector<int>>& onBody = onBodyStore;
    if (onBody.size() < static_cast<std::size_t>(v.size() / 6))
        onBody.resize(static_cast<std::size_t>(v.size() / 6));

    // Split stabilisation (ContactRows::bias): per island, whether it has biased rows; their
    // velocities for the whole targets (by part, or by row-space impulses).
    thread_local std::vector<char> islandBiasedStore;
    thread_local std::vector<PaddedTwist> paddedBiasedStore;
    thread_local std::vector<double> biasedImpulseStore;
    std::vector<char>& biasedOf = islandBiasedStore;
    std::vector<PaddedTwist>& paddedBiased = paddedBiasedStore;
    std::vector<double>& biasedImpulse = biasedImpulseStore;
    biasedOf.assign(count, 0);
    if (positionVelocity) {
        paddedBiased.resize(padded.size());
        if (responses) biasedImpulse.resize(3 * n);
    }
    // One island: its contacts (indices into p.contacts, in their order) and the parts they
    // touch. Islands share no part (nor, in row space, a part a response moves): each is
    // solved alone, the same on any thread.
    auto solveIsland = [&](const std::vector<std::size_t>& islandContacts,
                           const std::vector<int>& islandParts, ContactSolveReport& islandReport,
                           char& islandBiased) {
        // (kept here and written out once: the islands' reports are neighbours in memory)
        ContactSolveReport out;
        struct Publish {
            ContactSolveReport &to, &from;
            ~Publish() { to = from; }
        } publish{islandReport, out};
        const std::vector<std::size_t>* island = &islandContacts;
        const bool rowSpace = rowOf[islandContacts.front()] != 0;
        const bool onRows = rowOf[islandContacts.front()] == kOnRows;
        const std::vector<int>* islandBodies = &islandParts;
        const std::size_t size = island->size();
        // What the island keeps per contact or row, by the contact's place `at` in the island
        // (on the solving thread: islands solved at once write no shared cache line).
        thread_local std::vector<Local> localStore;
        std::vector<Local>& local = localStore;
        local.resize(size);
        for (std::size_t at = 0; at < size; ++at) prepare((*island)[at], local[at]);
        thread_local std::vector<int> interfaceOfStore;
        thread_local std::vector<char> stickingStore;
        thread_local Eigen::VectorXd wFreeStore;
        std::vector<int>& interfaceOf = interfaceOfStore;  // its coarse interface
        std::vector<char>& sticking = stickingStore;
        Eigen::VectorXd& wFree = wFreeStore;
        interfaceOf.assign(size, -1);
        sticking.assign(size, 0);
        wFree.resize(static_cast<Eigen::Index>(3 * size));
        // Every impulse into its limits (z ≥ 0, friction within μz + bound), velocities following.
        auto clampAll = [&] {
            for (const std::size_t ci : *island) {
                ContactRows& c = p.contacts[ci];
                const double z = std::max(0.0, c.impulse[0]);
                push(ci, 0, z - c.impulse[0]);
                c.impulse[0] = z;
                const Eigen::Vector2d beta =
                    limitFriction(p, c, {c.impulse[1], c.impulse[2]}, c.friction * z + c.bound);
                for (int r = 1; r < 3; ++r) {
                    push(ci, r, beta(r - 1) - c.impulse[r]);
                    c.impulse[r] = beta(r - 1);
                }
            }
        };

        // The coarse correction (two-level Gauss–Seidel, aggregation over the contact graph): the
        // active rows between the same two parts — pushing normal rows, and the tangent rows of
        // those that stick — form one interface f, whose impulses change by z_i += J_i c_f (J_i:
        // the row's entries on the interface's reference part), c_f a wrench, with c solving the
        // Galerkin system (Pᵀ W P) c = −Pᵀ r. The range of P is that of the interface's rows: its
        // wrenches are those its points can carry, each spread over them with the least impulse;
        // what P cannot express (a face's rows beyond six) is left to the sweeps, so dependent rows
        // need no choice and inconsistent targets no special care. Gauss–Seidel carries a load
        // down a stack of k parts in about k² sweeps and rocks it as slowly; this solve carries
        // both at once (block-tridiagonal for a stack, the contact graph's pattern for a pile), and
        // the sweeps then settle how each interface shares its wrench among its points.
        struct Interface {
            int bodyA, bodyB, side;  // side: the reference part's (B's, or A's against the ground)
            Mat6 G[2], H[2];         // Σ J_i,ref J_i,sideᵀ and Σ J_i,ref (M⁻¹J_i,side)ᵀ
            Vec6 residual;           // Σ J_i,ref r_i
        };
        // (kept on the solving thread: an island's solve allocates nothing; with allocations,
        // the threads' islands met in the allocator's locks)
        thread_local std::vector<Interface> interfacesStore;
        thread_local std::vector<double> blockScaleStore;
        std::vector<Interface>& interfaces = interfacesStore;
        std::vector<double>& blockScale = blockScaleStore;
        auto coarseStep = [&]() -> bool {
            interfaces.clear();
            std::fill(interfaceOf.begin(), interfaceOf.end(), -1);
            std::fill(sticking.begin(), sticking.end(), 0);
            for (std::size_t at = 0; at < size; ++at) {
                const std::size_t ci = (*island)[at];
                const ContactRows& c = p.contacts[ci];
                if (!(c.impulse[0] > 0.0) || !(local[at].Wn > 0.0)) continue;
                int k = -1;
                // (contacts of a pair are few and often neighbours: a short search back)
                for (int j = static_cast<int>(interfaces.size()); j-- > 0;)
                    if (interfaces[static_cast<std::size_t>(j)].bodyA == c.bodyA &&
                        interfaces[static_cast<std::size_t>(j)].bodyB == c.bodyB) {
                        k = j;
                        break;
                    }
                if (k < 0) {
                    k = static_cast<int>(interfaces.size());
                    Interface f;
                    f.bodyA = c.bodyA;
                    f.bodyB = c.bodyB;
                    f.side = c.bodyB >= 0 ? 1 : 0;
                    for (int side = 0; side < 2; ++side) f.G[side] = f.H[side] = Mat6::Zero();
                    f.residual = Vec6::Zero();
                    interfaces.push_back(f);
                }
                Interface& f = interfaces[static_cast<std::size_t>(k)];
                const bool sticks = stickingFriction(p, c, c.friction * c.impulse[0] + c.bound);
                sticking[at] = sticks ? 1 : 0;
                for (int r = 0; r < (sticks ? 3 : 1); ++r) {
                    const Vec6& P = c.J[r][f.side];
                    for (int side = 0; side < 2; ++side) {
                        f.G[side].noalias() += P * c.J[r][side].transpose();
                        f.H[side].noalias() += P * c.MinvJ(r, side).transpose();
                    }
                    const double res =
                        r == 0 ? velocity(c, ci, 0) + c.compliance * c.impulse[0] - c.target
                               : velocity(c, ci, r);
                    f.residual += P * res;
                }
                interfaceOf[at] = k;
            }
            const Eigen::Index m = static_cast<Eigen::Index>(interfaces.size());
            if (m == 0) return false;
            // Jointed parts: the system is dense, its factorisation (6m)³/3 — past
            // kDenseCoarseUpTo interfaces dearer than the sweeps it saves.
            if (rowSpace && m > kDenseCoarseUpTo) return false;
            thread_local Eigen::VectorXd rhsStore, xStore;
            Eigen::VectorXd &rhs = rhsStore, &x = xStore;
            rhs.resize(6 * m);
            for (Eigen::Index k = 0; k < m; ++k)
                rhs.segment<6>(6 * k) = -interfaces[static_cast<std::size_t>(k)].residual;
            // The directions an interface cannot carry (fewer than six independent rows: an edge,
            // a point) have zero rows and right-hand side; a relative 1e-7 on each interface's
            // diagonal makes them c = 0 and tempers those it barely carries.
            constexpr double kRegularisation = 1e-7;
            // The interfaces' rows: contact ci's row r in interface k, P its entries on the
            // interface's reference part.
            auto forEachActiveRow = [&](auto&& visit) {
                for (std::size_t at = 0; at < size; ++at) {
                    const int k = interfaceOf[at];
                    if (k < 0) continue;
                    const std::size_t ci = (*island)[at];
                    const int side = interfaces[static_cast<std::size_t>(k)].side;
                    for (int r = 0; r < (sticking[at] ? 3 : 1); ++r)
                        visit(ci, r, k, p.contacts[ci].J[r][side]);
                }
            };
            blockScale.assign(static_cast<std::size_t>(m), 0.0);
            if (rowSpace) {
                // Jointed parts (W by columns): Pᵀ W P from its columns.
                thread_local Eigen::MatrixXd WPStore, AStore;
                Eigen::MatrixXd &WP = WPStore, &A = AStore;
                WP.setZero(static_cast<Eigen::Index>(3 * size), 6 * m);  // (the island's rows)
                forEachActiveRow([&](std::size_t ci, int r, int k, const Vec6& P) {
                    forEachInColumn(
                        static_cast<Eigen::Index>(3 * ci) + r, [&](Eigen::Index row, double value) {
                            WP.block<1, 6>(placed(row), 6 * k).noalias() += value * P.transpose();
                        });
                });
                A.setZero(6 * m, 6 * m);
                forEachActiveRow([&](std::size_t ci, int r, int k, const Vec6& P) {
                    A.middleRows<6>(6 * k).noalias() +=
                        P * WP.row(placed(static_cast<Eigen::Index>(3 * ci) + r));
                });
                for (Eigen::Index k = 0; k < m; ++k)
                    blockScale[static_cast<std::size_t>(k)] =
                        A.block<6, 6>(6 * k, 6 * k).diagonal().maxCoeff();
                const double largest = *std::max_element(blockScale.begin(), blockScale.end());
                for (Eigen::Index k = 0; k < m; ++k)
                    A.block<6, 6>(6 * k, 6 * k).diagonal().array() +=
                        kRegularisation *
                        std::max(blockScale[static_cast<std::size_t>(k)], 1e-9 * largest);
                const Eigen::LLT<Eigen::MatrixXd> llt(A);
                if (llt.info() != Eigen::Success) return false;
                x = llt.solve(rhs);
            } else {
                // Free parts: Pᵀ W P = Σ over each part of its interfaces' G M⁻¹ Gᵀ, sparse with the
                // contact graph's pattern.
                for (const int b : *islandBodies) onBody[static_cast<std::size_t>(b)].clear();
                for (Eigen::Index k = 0; k < m; ++k) {
                    const Interface& f = interfaces[static_cast<std::size_t>(k)];
                    if (f.bodyA >= 0)
                        onBody[static_cast<std::size_t>(f.bodyA)].push_back(static_cast<int>(k));
                    if (f.bodyB >= 0)
                        onBody[static_cast<std::size_t>(f.bodyB)].push_back(static_cast<int>(k));
                }
                const double budget = kSweepFlopsPerRow * 3.0 * static_cast<double>(size) *
                                      static_cast<double>(std::max(maxIterations, 1));
                double blockCount = 0.0;  // (an interface's own block counted twice)
                for (const int body : *islandBodies) {
                    const auto d =
                        static_cast<double>(onBody[static_cast<std::size_t>(body)].size());
                    blockCount += 0.5 * d * (d + 1.0);
                }
                if (blockCount > kCoarseBlocksPer * static_cast<double>(m) ||
                    blockCount * kFlopsPerBlock > budget)
                    return false;
                // Its blocks (row k ≥ column l, interfaces sharing a part), in column order.
                CoarseWork& work = coarseWork();
                work.blocks.clear();
                for (const int body : *islandBodies)
                    for (const int k : onBody[static_cast<std::size_t>(body)]) {
                        const std::size_t b = static_cast<std::size_t>(body);
                        const Interface& f = interfaces[static_cast<std::size_t>(k)];
                        const int sk = f.bodyA == static_cast<int>(b) ? 0 : 1;
                        for (const int l : onBody[b]) {
                            if (l > k) continue;
                            const Interface& g = interfaces[static_cast<std::size_t>(l)];
                            const int sl = g.bodyA == static_cast<int>(b) ? 0 : 1;
                            work.blocks.push_back({k, l, f.G[sk] * g.H[sl].transpose()});
                        }
                    }
                // (sorted by index: a block is 300 bytes)
                work.order.resize(work.blocks.size());
                for (std::size_t i = 0; i < work.order.size(); ++i) work.order[i] = i;
                std::sort(work.order.begin(), work.order.end(), [&](std::size_t x, std::size_t y) {
                    const CoarseBlock &a = work.blocks[x], &b = work.blocks[y];
                    return a.col != b.col ? a.col < b.col : a.row < b.row;
                });
                work.sorted.clear();  // (an interface's own block comes from both its parts)
                for (const std::size_t i : work.order) {
                    const CoarseBlock& block = work.blocks[i];
                    if (!work.sorted.empty() && work.sorted.back().row == block.row &&
                        work.sorted.back().col == block.col)
                        work.sorted.back().value += block.value;
                    else
                        work.sorted.push_back(block);
                }
                work.blocks.swap(work.sorted);
                for (const CoarseBlock& block : work.blocks)
                    if (block.row == block.col)
                        blockScale[static_cast<std::size_t>(block.row)] =
                            block.value.diagonal().maxCoeff();
                const double largest = *std::max_element(blockScale.begin(), blockScale.end());
                for (CoarseBlock& block : work.blocks)
                    if (block.row == block.col)
                        block.value.diagonal().array() +=
                            kRegularisation *
                            std::max(blockScale[static_cast<std::size_t>(block.row)],
                                     1e-9 * largest);
                // The interfaces in minimum-degree order (kept while the block pattern is: a pile
                // at rest, every step), the blocks renumbered into the lower triangle.
                work.pattern.clear();
                for (const CoarseBlock& block : work.blocks)
                    work.pattern.emplace_back(block.row, block.col);
                if (work.pattern != work.orderedPattern ||
                    work.newOf.size() != static_cast<std::size_t>(m)) {
                    orderInterfaces(work.pattern, static_cast<int>(m), work.newOf);
                    work.orderedPattern = work.pattern;
                }
                for (CoarseBlock& block : work.blocks) {
                    const int row = work.newOf[static_cast<std::size_t>(block.row)],
                              col = work.newOf[static_cast<std::size_t>(block.col)];
                    if (row >= col) {
                        block.row = row;
                        block.col = col;
                    } else {
                        block.row = col;
                        block.col = row;
                        block.value.transposeInPlace();
                    }
                }
                work.order.resize(work.blocks.size());
                for (std::size_t i = 0; i < work.order.size(); ++i) work.order[i] = i;
                std::sort(work.order.begin(), work.order.end(), [&](std::size_t x, std::size_t y) {
                    const CoarseBlock &a = work.blocks[x], &b = work.blocks[y];
                    return a.col != b.col ? a.col < b.col : a.row < b.row;
                });
                work.sorted.clear();
                for (const std::size_t i : work.order) work.sorted.push_back(work.blocks[i]);
                work.blocks.swap(work.sorted);
                for (Eigen::Index k = 0; k < m; ++k)
                    rhs.segment<6>(6 * work.newOf[static_cast<std::size_t>(k)]) =
                        -interfaces[static_cast<std::size_t>(k)].residual;
                // The factor's pattern (kept while the blocks' is: a pile at rest, every step),
                // then the factor and the correction in the elimination order.
                work.lower.clear();
                for (const CoarseBlock& block : work.blocks)
                    if (block.row != block.col) work.lower.emplace_back(block.row, block.col);
                if (work.lower != work.factoredPattern ||
                    work.factor.columns() != static_cast<std::size_t>(m)) {
                    work.factor.analyse(work.lower, static_cast<int>(m));
                    work.factoredPattern = work.lower;
                }
                if (work.factor.flops() > budget) return false;
                if (!work.factor.factorise(work.blocks)) return false;
                Eigen::VectorXd& ordered = rhs;
                work.factor.solveInPlace(ordered);
                x.resize(6 * m);
                for (Eigen::Index k = 0; k < m; ++k)
                    x.segment<6>(6 * k) =
                        ordered.segment<6>(6 * work.newOf[static_cast<std::size_t>(k)]);
            }
            if (!x.allFinite()) return false;
            forEachActiveRow([&](std::size_t ci, int r, int k, const Vec6& P) {
                const double dz = P.dot(x.segment<6>(6 * k));
                p.contacts[ci].impulse[r] += dz;
                push(ci, r, dz);
            });
            clampAll();
            return true;
        };
        // The energy of the impulses, whose minimum over their limits is the solution:
        // ½ zᵀ W z + Σ z (w_free − target) + ½ σ z², i.e. Σ z (½ (w − w_free) + w_free − target)
        // + ½ σ z² with w = w_free + W z the rows' velocities. A coarse correction is kept when,
        // clamped into the limits, it lowers it (the sweeps do, a row at a time): a correction
        // along a direction an interface barely carries (three points nearly in a line) asks large
        // opposite impulses the limits then cut, and is given back.
        // (w_free = w − W z at any point of the sweeps: taken for an island when first needed)
        auto takeFree = [&] {
            if (onRows) {
                for (std::size_t at = 0; at < size; ++at)
                    wFree.segment<3>(static_cast<Eigen::Index>(3 * at)) =
                        w.segment<3>(static_cast<Eigen::Index>(3 * (*island)[at]));
                for (const std::size_t ci : *island)
                    for (int r = 0; r < 3; ++r)
                        if (const double z = p.contacts[ci].impulse[r]; z != 0.0)
                            forEachInColumn(static_cast<Eigen::Index>(3 * ci) + r,
                                            [&](Eigen::Index k, double value) {
                                                wFree(placed(k)) -= value * z;
                                            });
                return;
            }
            for (const int b : *islandBodies) twistOf(paddedFree, b) = twistOf(padded, b);
            for (const std::size_t ci : *island)
                for (int r = 0; r < 3; ++r) pushInto(paddedFree, ci, r, -p.contacts[ci].impulse[r]);
            for (std::size_t at = 0; at < size; ++at)
                for (int r = 0; r < 3; ++r)
                    wFree(static_cast<Eigen::Index>(3 * at) + r) =
                        rowVelocity(p.contacts[(*island)[at]], r, paddedFree);
        };
        auto energy = [&] {
            double e = 0.0;
            for (std::size_t at = 0; at < size; ++at) {
                const std::size_t ci = (*island)[at];
                const ContactRows& c = p.contacts[ci];
                e += 0.5 * c.compliance * c.impulse[0] * c.impulse[0];
                for (int r = 0; r < 3; ++r) {
                    const double free = wFree(static_cast<Eigen::Index>(3 * at) + r);
                    e += c.impulse[r] *
                         (0.5 * (velocity(c, ci, r) - free) + free - (r == 0 ? c.target : 0.0));
                }
            }
            return e;
        };
        thread_local std::vector<double> savedImpulsesStore;
        thread_local Eigen::VectorXd savedVelocitiesStore;
        std::vector<double>& savedImpulses = savedImpulsesStore;
        Eigen::VectorXd& savedVelocities = savedVelocitiesStore;
        auto save = [&] {
            savedImpulses.clear();
            for (const std::size_t ci : *island)
                for (int r = 0; r < 3; ++r) savedImpulses.push_back(p.contacts[ci].impulse[r]);
            if (onRows) {  // (the island's rows only: other islands may be solving)
                savedVelocities.resize(static_cast<Eigen::Index>(3 * size));
                for (std::size_t at = 0; at < size; ++at)
                    savedVelocities.segment<3>(static_cast<Eigen::Index>(3 * at)) =
                        w.segment<3>(static_cast<Eigen::Index>(3 * (*island)[at]));
                return;
            }
            savedVelocities.resize(6 * static_cast<Eigen::Index>(islandBodies->size()));
            for (std::size_t k = 0; k < islandBodies->size(); ++k)
                savedVelocities.segment<6>(6 * static_cast<Eigen::Index>(k)) =
                    twistOf(padded, (*islandBodies)[k]);
        };
        auto restore = [&] {
            std::size_t at = 0;
            for (const std::size_t ci : *island)
                for (int r = 0; r < 3; ++r) p.contacts[ci].impulse[r] = savedImpulses[at++];
            if (onRows) {
                for (std::size_t at = 0; at < size; ++at)
                    w.segment<3>(static_cast<Eigen::Index>(3 * (*island)[at])) =
                        savedVelocities.segment<3>(static_cast<Eigen::Index>(3 * at));
                return;
            }
            for (std::size_t k = 0; k < islandBodies->size(); ++k)
                twistOf(padded, (*islandBodies)[k]) =
                    savedVelocities.segment<6>(6 * static_cast<Eigen::Index>(k));
        };

        // Sweeps alternate direction (symmetric Gauss–Seidel): an impulse travels through a whole
        // stack in one pair of sweeps, up and down, instead of one contact per sweep. (Nonsmooth
        // nonlinear conjugate gradients on top — a momentum term along the previous sweeps'
        // change while the changes shrink, Silcowitz, Niebe & Erleben 2010 — helped before the
        // coarse corrections and split stabilisation; with them it cost convergence: docs/
        // performance.md, 2026-12-04.) Up to `budget` sweeps from the impulses and velocities
        // as they are; false when they end unconverged.
        // The island's complementarity error: each row's natural residual (what a projected
        // Jacobi step would change its impulse by, times the row's diagonal: m/s), squared and
        // summed over the island.
        auto naturalResidual = [&] {
            double sum = 0.0;
            for (std::size_t at = 0; at < size; ++at) {
                const std::size_t ci = (*island)[at];
                const ContactRows& c = p.contacts[ci];
                const Local& l = local[at];
                const double z = c.impulse[0];
                const double wn = velocity(c, ci, 0) + c.compliance * z - c.target;
                const double rn = (z - std::max(0.0, z - wn * l.invNormal)) * l.Wn;
                sum += rn * rn;
                const double limit = c.friction * z + c.bound;
                for (int r = 1; r < 3; ++r) {
                    const double b = c.impulse[r];
                    const double rt = (b - std::clamp(b - velocity(c, ci, r) * l.invTangent[r - 1],
                                                      -limit, limit)) *
                                      l.Wt[r - 1];
                    sum += rt * rt;
                }
            }
            return sum;
        };
        // Whether joints couple the island's rows: a response moves a body besides its
        // contact's own two (a free part's responses in joint coordinates are its M⁻¹Jᵀ, to
        // round-off: it is swept as in maximal coordinates, and takes no Newton step there).
        int coupled = -1;  // (unknown until asked)
        auto jointed = [&] {
            if (coupled < 0) {
                coupled = 0;
                for (std::size_t at = 0; at < size && !coupled; ++at) {
                    const std::size_t ci = (*island)[at];
                    const ContactRows& c = p.contacts[ci];
                    for (std::size_t j = 3 * ci; j < 3 * ci + 3 && !coupled; ++j)
                        for (std::size_t e = p.U.start[j]; e < p.U.start[j + 1]; ++e)
                            if (p.U.body[e] != c.bodyA && p.U.body[e] != c.bodyB) {
                                coupled = 1;
                                break;
                            }
                }
            }
            return coupled == 1;
        };
        // A Newton step on a small row-space island (box friction): the island's problem solved
        // whole, dense, by a semismooth Newton method on its natural residual. Rows are taken as
        // they stand at the iterate x (H = the island's W, g = H (x − x₀) + the rows' residual at
        // x₀ — J v⁺ + σz − target for a normal, J v⁺ for a friction):
        // - a normal row at 0 with g > 0 (separating) stays 0; the others are free;
        // - a friction row at its bound ±(μz + bound) and pushed further is tied to its normal,
        //   β = ±(μz + bound) (it slides; its bound moves with z); the others are free (they
        //   stick), those of a normal at 0 are 0;
        // and the free rows solve g = 0, the tied ones following: (H_FF + H_FT S) d = −g_F, S
        // the ties (±μ), with a Levenberg–Marquardt damping (1e-4 of the largest diagonal:
        // dependent rows — a box's four corners on the floor, two points of one line — make H_FF
        // singular, and their split is left to the merit). Each step is projected into the
        // limits (normals, then frictions within their normals' bounds) and halved until the
        // largest natural residual falls; it ends below a tenth of the tolerance, when no step
        // lowers it, or after kNewtonIterations. PGS alone carries a load through a robot's
        // light feet and heavy trunk slowly (the Go1 dropped on a floor ended 695 of 1,000 steps
        // at the sweep limit, 1e-3 m/s from converged); this settles it in a few steps, and
        // the sweeps after it confirm it. Kept when it lowers the island's residual.
        // Where the rows' factors in the tree's rates are given (joint coordinates:
        // H = Rᵀ Z + the compliances) and the free rows outnumber the rates, the system is
        // solved through the rates by Woodbury's identity — an nv × nv factorisation, whatever
        // the rows — so islands up to kNewtonInRatesUpTo contacts take it (ANYmal C's of
        // 32–44 contacts in joint coordinates: 46 → 34 unconverged steps of 1,000).
        auto newtonStep = [&]() -> bool {
            const Eigen::Index m = static_cast<Eigen::Index>(3 * size);
            thread_local Eigen::MatrixXd Hstore, Astore;
            thread_local std::vector<char> fixedZeroStore;
            thread_local std::vector<Eigen::Index> freeRowsStore, tiedRowsStore;
            thread_local std::vector<int> placeInFStore;
            thread_local std::vector<double> tieStore;
            thread_local Eigen::MatrixXd RF, Y, K;  // (the system through the rates)
            thread_local Eigen::VectorXd Dinv, rhsF, stepF;
            thread_local std::vector<Eigen::Index> clipped;  // (rows a trial's projection moved)
            Eigen::MatrixXd &H = Hstore, &A = Astore;
            std::vector<char>& fixedZero = fixedZeroStore;  // rows whose impulse stays 0
            std::vector<Eigen::Index>&freeRows = freeRowsStore, &tiedRows = tiedRowsStore;
            std::vector<int>& placeInF = placeInFStore;
            std::vector<double>& tie = tieStore;
            H.setZero(m, m);
            fixedZero.assign(static_cast<std::size_t>(m), 0);
            Eigen::VectorXd x0(m), g0(m), lo(m), hi(m);
            for (std::size_t at = 0; at < size; ++at) {
                const std::size_t ci = (*island)[at];
                const ContactRows& c = p.contacts[ci];
                for (int r = 0; r < 3; ++r) {
                    const Eigen::Index i = static_cast<Eigen::Index>(3 * at) + r;
                    forEachInColumn(static_cast<Eigen::Index>(3 * ci) + r,
                                    [&](Eigen::Index j, double value) { H(placed(j), i) = value; });
                    x0(i) = c.impulse[r];
                    g0(i) = r == 0 ? velocity(c, ci, 0) + c.compliance * c.impulse[0] - c.target
                                   : velocity(c, ci, r);
                }
                H(static_cast<Eigen::Index>(3 * at), static_cast<Eigen::Index>(3 * at)) +=
                    c.compliance;
                if (!(local[at].Wn > 0.0)) fixedZero[3 * at] = 1;
                for (int r = 1; r < 3; ++r)
                    if (!(local[at].Wt[r - 1] > 0.0) ||
                        (c.friction == 0.0 && c.bound == 0.0 && !c.boxFriction))
                        fixedZero[3 * at + static_cast<std::size_t>(r)] = 1;
            }
            double largest = 0.0;
            for (Eigen::Index i = 0; i < m; ++i) largest = std::max(largest, H(i, i));
            if (!(largest > 0.0)) return false;
            const double damping = kNewtonDamping * largest;
            const Eigen::VectorXd diagonal = H.diagonal();
            // (H symmetric, from its lower triangle: its products read it whole)
            H.triangularView<Eigen::StrictlyUpper>() = H.transpose();
            // (lo, hi from the normals of y; y's normals, then its frictions, into them)
            auto project = [&](Eigen::VectorXd& y) {
                for (std::size_t at = 0; at < size; ++at) {
                    const ContactRows& c = p.contacts[(*island)[at]];
                    const Eigen::Index i = static_cast<Eigen::Index>(3 * at);
                    y(i) = fixedZero[3 * at] ? 0.0 : std::max(0.0, y(i));
                    lo(i) = 0.0;
                    hi(i) = fixedZero[3 * at] ? 0.0 : std::numeric_limits<double>::infinity();
                    const double limit = std::max(0.0, c.friction * y(i) + c.bound);
                    for (int r = 1; r < 3; ++r) {
                        const bool zero = fixedZero[3 * at + static_cast<std::size_t>(r)] != 0;
                        lo(i + r) = zero ? 0.0 : -limit;
                        hi(i + r) = zero ? 0.0 : limit;
                        y(i + r) = std::clamp(y(i + r), lo(i + r), hi(i + r));
                    }
                }
            };
            // The largest natural residual at y (lo, hi y's) with its g.
            auto residual = [&](const Eigen::VectorXd& y, const Eigen::VectorXd& g) {
                double worst = 0.0;
                for (Eigen::Index i = 0; i < m; ++i)
                    if (diagonal(i) > 0.0)
                        worst = std::max(
                            worst,
                            std::abs(y(i) - std::clamp(y(i) - g(i) / diagonal(i), lo(i), hi(i))) *
                                diagonal(i));
                return worst;
            };
            // g at y, whole.
            auto gradient = [&](const Eigen::VectorXd& y, Eigen::VectorXd& g) {
                g = g0;
                g.noalias() += H * (y - x0);
            };
            Eigen::VectorXd x = x0, g(m), gTrial(m), d(m), y(m), u(m), Hd(m);
            project(x);
            gradient(x, g);
            double current = residual(x, g);
            placeInF.assign(static_cast<std::size_t>(m), -1);
            tie.assign(static_cast<std::size_t>(m), 0.0);
            freeRows.clear();
            tiedRows.clear();
            for (int it = 0; it < kNewtonIterations && current > 0.1 * tolerance; ++it) {
                for (const Eigen::Index i : freeRows) placeInF[static_cast<std::size_t>(i)] = -1;
                for (const Eigen::Index t : tiedRows) tie[static_cast<std::size_t>(t)] = 0.0;
                freeRows.clear();
                tiedRows.clear();
                for (std::size_t at = 0; at < size; ++at) {
                    const Eigen::Index n = static_cast<Eigen::Index>(3 * at);
                    const bool normalFree = !fixedZero[3 * at] && !(x(n) <= 0.0 && g(n) > 0.0);
                    if (normalFree) {
                        placeInF[static_cast<std::size_t>(n)] = static_cast<int>(freeRows.size());
                        freeRows.push_back(n);
                    }
                    const ContactRows& c = p.contacts[(*island)[at]];
                    for (int r = 1; r < 3; ++r) {
                        const Eigen::Index t = n + r;
                        if (fixedZero[static_cast<std::size_t>(t)] || !(hi(t) > 0.0 || normalFree))
                            continue;
                        const bool atHi = x(t) >= hi(t) && g(t) < 0.0;
                        const bool atLo = x(t) <= lo(t) && g(t) > 0.0;
                        if (atHi || atLo) {
                            if (normalFree && c.friction > 0.0) {
                                tie[static_cast<std::size_t>(t)] = (atHi ? 1.0 : -1.0) * c.friction;
                                tiedRows.push_back(t);
                            }
                            continue;
                        }
                        placeInF[static_cast<std::size_t>(t)] = static_cast<int>(freeRows.size());
                        freeRows.push_back(t);
                    }
                }
                const Eigen::Index f = static_cast<Eigen::Index>(freeRows.size());
                if (f == 0) break;
                // (fewer rates than free rows: the system through the rates — below)
                if (inRates && nv < f) {
                    const Eigen::MatrixXd& R = *p.rowsInRates;
                    const Eigen::MatrixXd& Z = *p.rateResponses;
                    const auto column = [&](Eigen::Index i) {  // (island row → problem row)
                        return static_cast<Eigen::Index>(
                                   3 * (*island)[static_cast<std::size_t>(i / 3)]) +
                               i % 3;
                    };
                    RF.resize(nv, f);
                    Y.resize(nv, f);
                    Dinv.resize(f);
                    rhsF.resize(f);
                    for (Eigen::Index a = 0; a < f; ++a) {
                        const Eigen::Index i = freeRows[static_cast<std::size_t>(a)];
                        RF.col(a) = R.col(column(i));
                        Y.col(a) = Z.col(column(i));
                        const double compliance =
                            i % 3 == 0
                                ? p.contacts[(*island)[static_cast<std::size_t>(i / 3)]].compliance
                                : 0.0;
                        Dinv(a) = 1.0 / (damping + compliance);
                        rhsF(a) = -g(i);
                    }
                    for (const Eigen::Index t : tiedRows)
                        Y.col(placeInF[static_cast<std::size_t>(t - t % 3)]) +=
                            tie[static_cast<std::size_t>(t)] * Z.col(column(t));
                    // (D + R_Fᵀ Y) d = b, D the damping and compliance: by Woodbury's identity,
                    // d = D⁻¹ (b − R_Fᵀ u) with (I + Y D⁻¹ R_Fᵀ) u = Y D⁻¹ b.
                    K.setIdentity(nv, nv);
                    K.noalias() += Y * Dinv.asDiagonal() * RF.transpose();
                    const Eigen::VectorXd scaled = Dinv.cwiseProduct(rhsF);
                    const Eigen::VectorXd u =
                        Eigen::PartialPivLU<Eigen::MatrixXd>(K).solve(Y * scaled);
                    stepF = Dinv.cwiseProduct(rhsF - RF.transpose() * u);
                } else {
                    const auto entry = [&](Eigen::Index i, Eigen::Index j) {
                        return i >= j ? H(i, j) : H(j, i);
                    };
                    A.resize(f, f);
                    Eigen::VectorXd rhs(f);
                    for (Eigen::Index a = 0; a < f; ++a) {
                        const Eigen::Index i = freeRows[static_cast<std::size_t>(a)];
                        rhs(a) = -g(i);
                        for (Eigen::Index b = 0; b < f; ++b)
                            A(a, b) = entry(i, freeRows[static_cast<std::size_t>(b)]);
                        for (const Eigen::Index t : tiedRows)
                            A(a, placeInF[static_cast<std::size_t>(t - t % 3)]) +=
                                entry(i, t) * tie[static_cast<std::size_t>(t)];
                        A(a, a) += damping;
                    }
                    stepF = Eigen::PartialPivLU<Eigen::MatrixXd>(A).solve(rhs);
                }
                const Eigen::VectorXd& step = stepF;
                if (!step.allFinite()) break;
                d.setZero();
                for (Eigen::Index a = 0; a < f; ++a)
                    d(freeRows[static_cast<std::size_t>(a)]) = step(a);
                for (const Eigen::Index t : tiedRows)
                    d(t) = tie[static_cast<std::size_t>(t)] * d(t - t % 3);
                // (each trial's g from H d, formed once, and the columns of the rows its
                // projection moved: g + α H d + H (y − u), u = x + α d unprojected; or whole
                // where it moved many)
                Hd.noalias() = H * d;
                bool moved = false;
                for (double alpha = 1.0; alpha > 1e-4 && !moved; alpha *= 0.5) {
                    u = x + alpha * d;
                    y = u;
                    project(y);
                    clipped.clear();
                    for (Eigen::Index k = 0; k < m; ++k)
                        if (y(k) != u(k)) clipped.push_back(k);
                    if (4 * static_cast<Eigen::Index>(clipped.size()) > m) {
                        gradient(y, gTrial);  // (most rows moved: the product whole)
                    } else {
                        gTrial = g + alpha * Hd;
                        for (const Eigen::Index k : clipped) gTrial += (y(k) - u(k)) * H.col(k);
                    }
                    const double trial = residual(y, gTrial);
                    if (trial < (1.0 - 1e-4 * alpha) * current) {
                        x.swap(y);
                        gradient(x, g);
                        current = residual(x, g);
                        moved = true;
                    }
                }
                if (!moved) break;
            }
            if (!x.allFinite()) return false;
            const double before = naturalResidual();
            save();
            for (std::size_t at = 0; at < size; ++at) {
                const std::size_t ci = (*island)[at];
                for (int r = 0; r < 3; ++r) {
                    const double dx =
                        x(static_cast<Eigen::Index>(3 * at) + r) - p.contacts[ci].impulse[r];
                    p.contacts[ci].impulse[r] += dx;
                    push(ci, r, dx);
                }
            }
            if (naturalResidual() <= before) return true;
            restore();
            return false;
        };
        bool freeTaken = false;
        auto sweepAll = [&](int budget, double tolerance) -> bool {
            bool coarseRefused = false;
            for (int sweep = 1; sweep <= budget; ++sweep) {
                double largest = 0.0;
                const bool forward = sweep % 2 == 1;
                for (std::size_t k = 0; k < size; ++k) {
                    const std::size_t at = forward ? k : size - 1 - k, ci = (*island)[at];
                    ContactRows& c = p.contacts[ci];
                    const Local& l = local[at];
                    // Normal: z ← max(0, z − (J_n v + σz − target) / (W_nn + σ)).
                    const double wn = velocity(c, ci, 0) + c.compliance * c.impulse[0] - c.target;
                    const double z = std::max(0.0, c.impulse[0] - wn * l.invNormal);
                    const double dz = z - c.impulse[0];
                    push(ci, 0, dz);
                    c.impulse[0] = z;
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
                            largest = std::max(largest, std::abs(db) * l.Wt[r - 1]);
                        }
                    }
                }
                ++out.iterations;
                out.residual = largest;
                if (largest <= tolerance) return true;
                if (coarse && rowSpace && size <= (inRates ? kNewtonInRatesUpTo : kNewtonUpTo) &&
                    p.friction == FrictionModel::Box && sweep % kNewtonEvery == 0 && jointed()) {
                    if (newtonStep()) ++out.newtonSteps;
                    continue;
                }
                if (coarse && !coarseRefused && sweep % kCoarseEvery == 0) {
                    if (!freeTaken) takeFree();
                    freeTaken = true;
                    const double before = energy();
                    save();
                    if (coarseStep()) {
                        if (energy() <= before) {
                            ++out.coarseSteps;
                            continue;
                        }
                        restore();
                    }
                    // On a large island a correction costs far more than the sweeps between two:
                    // one given back (the active rows change under it) ends them for this solve.
                    coarseRefused =
                        interfaces.size() > (rowSpace ? kDenseRetryUpTo : kCoarseRetryUpTo);
                }
            }
            return false;
        };
        // Biased rows (split stabilisation): the island's velocities for the whole targets move
        // the positions; v⁺ and the impulses meet the targets less their biases. The positions'
        // velocities decide how fast a penetration is pushed out, not the motion: they are
        // solved to kPositionTolerance times the tolerance (at v⁺'s, pile-1,000 ended half its
        // steps at the sweep limit in that phase: docs/performance.md), and the island's
        // convergence is v⁺'s. Free parts' islands are solved for the whole targets
        // first, those velocities kept (by part, or by row-space impulses), then on from there,
        // warm, for the targets less the biases: a push-out's effect is local and takes a few
        // sweeps to take back. A mechanism's island converges slowly (a chain dragged through a
        // pile: ~80 sweeps a step), and any change of its targets costs a whole solve again: v⁺
        // is solved first, then the positions' velocities found from it by at most
        // kPositionSweeps sweeps, and v⁺ and the impulses put back.
        bool biased = false;
        if (positionVelocity)
            for (const std::size_t ci : *island) biased = biased || p.contacts[ci].bias > 0.0;
        if (!biased) {
            out.converged = sweepAll(maxIterations, tolerance);
            return;
        }
        islandBiased = 1;
        auto keepBiased = [&] {
            if (onRows) {
                for (const std::size_t ci : *island)
                    for (int r = 0; r < 3; ++r)
                        biasedImpulse[3 * ci + static_cast<std::size_t>(r)] =
                            p.contacts[ci].impulse[r];
            } else {
                for (const int b : *islandBodies) twistOf(paddedBiased, b) = twistOf(padded, b);
            }
        };
        auto unbiased = [&](double sign) {
            for (const std::size_t ci : *island)
                p.contacts[ci].target += sign * p.contacts[ci].bias;
        };
        if (!rowSpace) {
            (void)sweepAll(maxIterations, kPositionTolerance * tolerance);
            keepBiased();
            unbiased(-1.0);
            out.converged = sweepAll(maxIterations, tolerance);
            unbiased(1.0);
            return;
        }
        unbiased(-1.0);
        out.converged = sweepAll(maxIterations, tolerance);
        unbiased(1.0);
        thread_local std::vector<double> solvedImpulseStore;
        thread_local std::vector<PaddedTwist> solvedTwistStore;
        std::vector<double>& solvedImpulse = solvedImpulseStore;
        std::vector<PaddedTwist>& solvedTwist = solvedTwistStore;
        solvedImpulse.clear();
        for (const std::size_t ci : *island)
            for (int r = 0; r < 3; ++r) solvedImpulse.push_back(p.contacts[ci].impulse[r]);
        if (onRows) {
            solvedTwist.resize(size);  // (the island's rows' velocities w, three a contact)
            for (std::size_t at = 0; at < size; ++at)
                for (int r = 0; r < 3; ++r)
                    solvedTwist[at].value[r] = w(static_cast<Eigen::Index>(3 * (*island)[at]) + r);
        } else {
            solvedTwist.resize(islandBodies->size());
            for (std::size_t k = 0; k < islandBodies->size(); ++k)
                Eigen::Map<Vec6>(solvedTwist[k].value) = twistOf(padded, (*islandBodies)[k]);
        }
        (void)sweepAll(kPositionSweeps, kPositionTolerance * tolerance);
        keepBiased();
        std::size_t at = 0;
        for (const std::size_t ci : *island)
            for (int r = 0; r < 3; ++r) p.contacts[ci].impulse[r] = solvedImpulse[at++];
        if (onRows) {
            for (std::size_t at = 0; at < size; ++at)
                for (int r = 0; r < 3; ++r)
                    w(static_cast<Eigen::Index>(3 * (*island)[at]) + r) = solvedTwist[at].value[r];
        } else {
            for (std::size_t k = 0; k < islandBodies->size(); ++k)
                twistOf(padded, (*islandBodies)[k]) = Eigen::Map<Vec6>(solvedTwist[k].value);
        }
    };

    for (const std::size_t ci : idle) {  // (two ground parts: no rows, the warm start clamped)
        Local unused;
        prepare(ci, unused);
    }
    // Solved at once on the engine's threads where there is enough to share (each the same
    // whichever thread solves it); the step's report is the worst island's.
    thread_local std::vector<ContactSolveReport> reportsStore;
    std::vector<ContactSolveReport>& reports = reportsStore;
    reports.assign(count, ContactSolveReport{});
    // A given island's contacts (its range) and parts (in the order its contacts touch them, A
    // before B), as the search above lists them; each island's parts are its own.
    // (each part marked in the solving thread's own array while its island is listed, then
    // unmarked: one array for all the threads shared cache lines between islands' parts)
    const std::size_t bodyCount = static_cast<std::size_t>(v.size() / 6);
    auto describeIsland = [&](std::size_t k) {
        thread_local std::vector<char> markedStore;
        std::vector<char>& marked = markedStore;  // (all zero between islands)
        if (marked.size() < bodyCount) marked.resize(bodyCount, 0);
        std::vector<std::size_t>& contacts = islands[k];
        std::vector<int>& parts = islandParts[k];
        contacts.clear();
        parts.clear();
        for (std::size_t ci = p.islandStart[k]; ci < p.islandStart[k + 1]; ++ci) {
            contacts.push_back(ci);
            for (const int b : {p.contacts[ci].bodyA, p.contacts[ci].bodyB})
                if (b >= 0 && !marked[static_cast<std::size_t>(b)]) {
                    marked[static_cast<std::size_t>(b)] = 1;
                    parts.push_back(b);
                }
        }
        for (const int b : parts) marked[static_cast<std::size_t>(b)] = 0;
        assert(!contacts.empty() && !parts.empty());
    };
    // (without joints: the velocities v⁺ for the whole targets are v's where no island moves
    // them; each island writes its own parts')
    if (positionVelocity && !responses) *positionVelocity = v;
    auto solveOne = [&](int k) {
        const std::size_t i = static_cast<std::size_t>(k);
        if (given) {
            if (p.writeRows) p.writeRows(p.islandStart[i], p.islandStart[i + 1]);
            describeIsland(i);
        }
        if (!responses)
            for (const int b : islandParts[i]) twistOf(padded, b) = layout::twist(v, b);
        solveIsland(islands[i], islandParts[i], reports[i], biasedOf[i]);
        if (responses) return;
        for (const int b : islandParts[i]) {
            layout::twist(v, b) = twistOf(padded, b);
            if (positionVelocity)
                layout::twist(*positionVelocity, b) =
                    twistOf(biasedOf[i] ? paddedBiased : padded, b);
        }
    };
    const auto islandSize = [&](std::size_t k) {
        return given ? p.islandStart[k + 1] - p.islandStart[k] : islands[k].size();
    };
    const int threads = workerThreads();
    if (count > 1 && n >= kParallelContacts && threads > 1) {
        // Tasks of consecutive islands of about n / (kIslandTasks threads) contacts, at least
        // 32: a task per island of one part on the floor would cost more to hand out than to
        // solve.
        thread_local std::vector<std::size_t> firstStore;
        std::vector<std::size_t>& first = firstStore;  // task t: islands first[t] … first[t+1]−1
        first.assign(1, 0);
        const std::size_t share =
            std::max<std::size_t>(32, n / (kIslandTasks * static_cast<std::size_t>(threads)));
        std::size_t contacts = 0;
        for (std::size_t k = 0; k + 1 < count; ++k) {
            contacts += islandSize(k);
            if (contacts >= share) {
                first.push_back(k + 1);
                contacts = 0;
            }
        }
        first.push_back(count);
        runTasks(static_cast<int>(first.size() - 1), [&](int t) {
            const std::size_t task = static_cast<std::size_t>(t);
            for (std::size_t k = first[task]; k < first[task + 1]; ++k)
                solveOne(static_cast<int>(k));
        });
    } else {
        for (std::size_t k = 0; k < count; ++k) solveOne(static_cast<int>(k));
    }
    p.writeRows = nullptr;  // (every row written)
    report.iterations = 0;
    for (const ContactSolveReport& one : reports) {
        report.iterations = std::max(report.iterations, one.iterations);
        report.residual = std::max(report.residual, one.residual);
        report.converged = report.converged && one.converged;
        report.coarseSteps += one.coarseSteps;
        report.newtonSteps += one.newtonSteps;
    }
    finish();
    if (positionVelocity && responses) {
        // v⁺, but for the biased islands' velocities for the whole targets.
        *positionVelocity = v;
        const auto onRows = [&](std::size_t k) {
            return responses && rowOf[islands[k].front()] == kOnRows;
        };
        bool rowSpace = false;  // (a biased island swept on rows: its velocities from impulses)
        for (std::size_t k = 0; k < count; ++k) {
            if (!biasedOf[k]) continue;
            if (onRows(k)) {
                rowSpace = true;
                continue;
            }
            for (const int b : islandParts[k])
                layout::twist(*positionVelocity, b) = twistOf(paddedBiased, b);
        }
        if (rowSpace) {
            Eigen::VectorXd difference = Eigen::VectorXd::Zero(rows);
            for (std::size_t k = 0; k < count; ++k) {
                if (!biasedOf[k] || !onRows(k)) continue;
                for (const std::size_t ci : islands[k])
                    for (int r = 0; r < 3; ++r)
                        difference(static_cast<Eigen::Index>(3 * ci) + r) =
                            biasedImpulse[3 * ci + static_cast<std::size_t>(r)] -
                            p.contacts[ci].impulse[r];
            }
            p.U.multiplyAdd(difference, *positionVelocity);
        }
    }
    return report;
}

bool lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd& x, int maxPivots,
           int* pivots) {
    const Eigen::Index n = q.size();
    x = Eigen::VectorXd::Zero(n);
    if (pivots) *pivots = 0;
    if (n == 0 || q.minCoeff() >= 0.0) return true;

    // Tableau of w − M x − 1 z0 = q over the variables w (0..n−1), x (n..2n−1), z0 (2n).
    // (the tableau kept from call to call: a step's stops solved afresh each step would
    // otherwise take and give back its memory every time)
    const Eigen::Index columns = 2 * n + 1;
    thread_local Eigen::MatrixXd T;
    thread_local Eigen::VectorXd b;
    thread_local std::vector<Eigen::Index> basis;
    T.resize(n, columns);
    T.leftCols(n).setIdentity();
    T.middleCols(n, n) = -M;
    T.col(2 * n).setConstant(-1.0);
    b = q;
    basis.resize(static_cast<std::size_t>(n));
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

ContactSolveReport solveLemke(ContactProblem& p, Eigen::VectorXd& v,
                              Eigen::VectorXd* positionVelocity) {
    ContactSolveReport report;
    const std::size_t nc = p.contacts.size();
    if (p.writeRows) {
        p.writeRows(0, nc);
        p.writeRows = nullptr;
    }
    if (nc == 0) return report;

    // Friction directions (coefficients on t1, t2) and groups: box friction has two groups
    // (±t1, ±t2) per contact, the cone one group of K directions.
    struct Direction {
        std::size_t contact;
        double c1, c2;
        int group;
    };
    // (the problem's arrays kept from call to call, as the tableau: lemke)
    thread_local std::vector<Direction> directions;
    thread_local std::vector<std::size_t> groupContact;
    directions.clear();
    groupContact.clear();
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
    thread_local Eigen::MatrixXd A, U, W, E, EW, M;
    thread_local Eigen::VectorXd Av, q, x, impulses;
    A.setZero(static_cast<Eigen::Index>(3 * nc), nv);
    U.resize(nv, static_cast<Eigen::Index>(3 * nc));
    for (std::size_t ci = 0; ci < nc; ++ci) {
        const ContactRows& c = p.contacts[ci];
        for (int r = 0; r < 3; ++r) {
            const Eigen::Index row = static_cast<Eigen::Index>(3 * ci) + r;
            if (c.bodyA >= 0) layout::twist(A.row(row), c.bodyA) += c.J[r][0].transpose();
            if (c.bodyB >= 0) layout::twist(A.row(row), c.bodyB) += c.J[r][1].transpose();
            U.col(row).setZero();
            if (dense(p)) {
                const auto j = static_cast<std::size_t>(row);
                for (std::size_t e = p.U.start[j]; e < p.U.start[j + 1]; ++e)
                    layout::twist(U.col(row), p.U.body[e]) = p.U.twist[e];
            } else {
                if (c.bodyA >= 0) layout::twist(U.col(row), c.bodyA) += c.MinvJ(r, 0);
                if (c.bodyB >= 0) layout::twist(U.col(row), c.bodyB) += c.MinvJ(r, 1);
            }
        }
    }
    W.noalias() = A * U;
    Av.noalias() = A * v;

    // Rows of the LCP in terms of the contact rows: normal i → 3i; direction d → its
    // combination of 3c+1 and 3c+2.
    E.setZero(static_cast<Eigen::Index>(3 * nc), nz + nd);
    for (Eigen::Index k = 0; k < nz + nd; ++k) {
        if (k < nz) {
            E(3 * k, k) = 1.0;
        } else {
            const Direction& d = directions[static_cast<std::size_t>(k - nz)];
            E(static_cast<Eigen::Index>(3 * d.contact) + 1, k) = d.c1;
            E(static_cast<Eigen::Index>(3 * d.contact) + 2, k) = d.c2;
        }
    }

    M.setZero(n, n);
    q.setZero(n);
    EW.noalias() = E.transpose() * W;
    M.topLeftCorner(nz + nd, nz + nd).noalias() = EW * E;
    q.head(nz + nd).noalias() = E.transpose() * Av;
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

    // The impulses for q: each contact's, their velocities v + U x.
    auto solveFor = [&](const Eigen::VectorXd& q, Eigen::VectorXd& impulses) {
        int pivots = 0;
        const bool solved = lemke(M, q, x, static_cast<int>(50 * n + 100), &pivots);
        report.converged = report.converged && solved;
        report.iterations += pivots;
        impulses.noalias() = E * x.head(nz + nd);
    };
    solveFor(q, impulses);
    // Biased rows: the velocities for the whole targets move the positions; v⁺ meets the targets
    // less their biases.
    bool biased = false;
    for (const ContactRows& c : p.contacts) biased = biased || c.bias > 0.0;
    if (positionVelocity) *positionVelocity = v + U * impulses;
    if (positionVelocity && biased) {
        for (std::size_t ci = 0; ci < nc; ++ci)
            q(static_cast<Eigen::Index>(ci)) += p.contacts[ci].bias;
        solveFor(q, impulses);
    }
    if (!report.converged) {  // (v as it came, the impulses zero)
        impulses.setZero();
        if (positionVelocity) *positionVelocity = v;
    }
    for (std::size_t ci = 0; ci < nc; ++ci)
        for (int r = 0; r < 3; ++r)
            p.contacts[ci].impulse[r] = impulses(static_cast<Eigen::Index>(3 * ci) + r);
    v += U * impulses;
    return report;
}

}  // namespace engine::contact
