#include "engine/solver/kkt_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include <Eigen/OrderingMethods>
#include <Eigen/SparseQR>

namespace engine {
namespace {

// Relative size below which a row of the rank-revealing QR counts as dependent. The rows are
// normalised first, so this is a tolerance on directions, independent of units.
constexpr double kRankTolerance = 1e-9;
// kDefaultSingularPivot (kkt_solver.h), 1e-10: a pivot of S below this fraction of its row's
// diagonal drops the row (its direction is
// within ~1e-5 rad of the span of the others; its λ would be noise divided by that pivot).
// Measured on the double four-bar (IFToMM A02) with rk4: 1e-13 lets a stage that lands
// within ~1e-6 rad of the flat position amplify its round-off into a 1e10 N multiplier
// (2 cm error at t = 10 s); 1e-8 drops rows while they still carry load (2.6e-8); 1e-10
// keeps every step size from 2e-3 to 1e-5 s within 1e-9 m of the reference.
static_assert(KktSolver::kDefaultSingularPivot == 1e-10);
// A dropped row missed by more than this fraction of the scale of its equation is no longer
// dependent on the rows kept. A row that depends exactly is missed by round-off (~1e-15) plus
// the position drift the projection tolerates (1e-10 m on links of 0.1 m: ~1e-9); one that
// depended only at a singular position, by the sine of the angle the mechanism has moved on.
constexpr double kDroppedRowTolerance = 1e-6;
// A pivot below this fraction of the best its row has had flags a singular position as near
// (KktSolver::nearSingular): the rows are within ~6° of depending on each other there.
constexpr double kNearSingularDrop = 1e-2;
// ε of the regularised projection, relative to S's largest diagonal.
constexpr double kRegularisation = 1e-10;

// The bodies a row of Φq touches (whole 6-column blocks): one or two for joints and motions
// (−1 stands for the ground: a row touching one body holds it to the ground). `more` is set
// for a row touching three bodies or more.
std::pair<int, int> bodiesOfRow(const KktSolver::RowMatrix& Phi_q, int r, bool& more) {
    int a = -1, b = -1;
    for (int p = Phi_q.outerIndexPtr()[r]; p < Phi_q.outerIndexPtr()[r + 1]; p += 6) {
        const int body = Phi_q.innerIndexPtr()[p] / 6;
        if (a < 0 || body == a)
            a = body;
        else if (b < 0 || body == b)
            b = body;
        else
            more = true;
    }
    return {std::min(a, b), std::max(a, b)};
}

// Groups of rows whose rank can be decided apart from the others: the rows of each pair of
// bodies joined across a bridge of the body graph, and the rows of each 2-edge-connected part
// (its loops). Rows ascending within a group.
std::vector<std::vector<int>> independentRowGroups(const KktSolver::RowMatrix& Phi_q,
                                                   std::vector<char>& onLoop) {
    const int rows = static_cast<int>(Phi_q.rows());
    const int bodies = static_cast<int>(Phi_q.cols() / 6);
    const int ground = bodies;  // node index of the ground
    // Edges: distinct pairs of nodes joined by rows.
    std::map<std::pair<int, int>, int> edgeOf;
    std::vector<std::pair<int, int>> edges;
    std::vector<int> edgeOfRow(static_cast<std::size_t>(rows), -1);
    onLoop.assign(static_cast<std::size_t>(rows), 1);
    for (int r = 0; r < rows; ++r) {
        bool more = false;
        auto [a, b] = bodiesOfRow(Phi_q, r, more);
        if (more) {
            // A row on three bodies or more (a coupler's, on every part of the joints it
            // couples): a ring of edges through its bodies, a loop of the graph, so that it is
            // decided with the rows around it.
            std::vector<int> ring;
            for (int p = Phi_q.outerIndexPtr()[r]; p < Phi_q.outerIndexPtr()[r + 1]; p += 6) {
                const int body = Phi_q.innerIndexPtr()[p] / 6;
                if (ring.empty() || ring.back() != body) ring.push_back(body);
            }
            edgeOfRow[static_cast<std::size_t>(r)] = static_cast<int>(edges.size());
            for (std::size_t k = 0; k < ring.size(); ++k)
                edges.emplace_back(ring[k], ring[(k + 1) % ring.size()]);
            continue;
        }
        if (a < 0 && b < 0) continue;  // an empty row: its own group
        const std::pair<int, int> key = a < 0 ? std::make_pair(b, ground) : std::make_pair(a, b);
        auto [it, added] = edgeOf.emplace(key, static_cast<int>(edges.size()));
        if (added) edges.push_back(key);
        edgeOfRow[static_cast<std::size_t>(r)] = it->second;
    }
    // Bridges by an iterative depth-first search (discovery times and low links).
    const int nodes = bodies + 1;
    std::vector<std::vector<std::pair<int, int>>> adjacent(
        static_cast<std::size_t>(nodes));  // (node, edge)
    for (int e = 0; e < static_cast<int>(edges.size()); ++e) {
        adjacent[static_cast<std::size_t>(edges[e].first)].emplace_back(edges[e].second, e);
        adjacent[static_cast<std::size_t>(edges[e].second)].emplace_back(edges[e].first, e);
    }
    std::vector<int> discovered(static_cast<std::size_t>(nodes), -1),
        low(static_cast<std::size_t>(nodes), 0);
    std::vector<char> bridge(edges.size(), 0);
    int clock = 0;
    struct Frame {
        int node, viaEdge;
        std::size_t next;
    };
    for (int root = 0; root < nodes; ++root) {
        if (discovered[static_cast<std::size_t>(root)] >= 0) continue;
        std::vector<Frame> stack{{root, -1, 0}};
        discovered[static_cast<std::size_t>(root)] = low[static_cast<std::size_t>(root)] = clock++;
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& around = adjacent[static_cast<std::size_t>(f.node)];
            if (f.next < around.size()) {
                const auto [to, e] = around[f.next++];
                if (e == f.viaEdge) continue;
                if (discovered[static_cast<std::size_t>(to)] < 0) {
                    discovered[static_cast<std::size_t>(to)] = low[static_cast<std::size_t>(to)] =
                        clock++;
                    stack.push_back({to, e, 0});
                } else {
                    low[static_cast<std::size_t>(f.node)] =
                        std::min(low[static_cast<std::size_t>(f.node)],
                                 discovered[static_cast<std::size_t>(to)]);
                }
                continue;
            }
            const Frame done = f;
            stack.pop_back();
            if (stack.empty()) continue;
            const int parent = stack.back().node;
            low[static_cast<std::size_t>(parent)] = std::min(
                low[static_cast<std::size_t>(parent)], low[static_cast<std::size_t>(done.node)]);
            if (low[static_cast<std::size_t>(done.node)] >
                discovered[static_cast<std::size_t>(parent)])
                bridge[static_cast<std::size_t>(done.viaEdge)] = 1;
        }
    }
    // Components of the graph without its bridges: each is a group of loops.
    std::vector<int> component(static_cast<std::size_t>(nodes), -1);
    int components = 0;
    for (int start = 0; start < nodes; ++start) {
        if (component[static_cast<std::size_t>(start)] >= 0) continue;
        std::vector<int> todo{start};
        component[static_cast<std::size_t>(start)] = components;
        while (!todo.empty()) {
            const int n = todo.back();
            todo.pop_back();
            for (const auto& [to, e] : adjacent[static_cast<std::size_t>(n)])
                if (!bridge[static_cast<std::size_t>(e)] &&
                    component[static_cast<std::size_t>(to)] < 0) {
                    component[static_cast<std::size_t>(to)] = components;
                    todo.push_back(to);
                }
        }
        ++components;
    }
    // A group per bridge edge and per loop component; rows join theirs in ascending order.
    std::vector<int> groupOfEdge(edges.size(), -1),
        groupOfComponent(static_cast<std::size_t>(components), -1);
    std::vector<std::vector<int>> groups;
    for (int r = 0; r < rows; ++r) {
        const int e = edgeOfRow[static_cast<std::size_t>(r)];
        int* slot = nullptr;
        if (e < 0) {
            groups.push_back({r});
            onLoop[static_cast<std::size_t>(r)] = 0;
            continue;
        }
        onLoop[static_cast<std::size_t>(r)] = !bridge[static_cast<std::size_t>(e)];
        if (bridge[static_cast<std::size_t>(e)])
            slot = &groupOfEdge[static_cast<std::size_t>(e)];
        else
            slot = &groupOfComponent[static_cast<std::size_t>(
                component[static_cast<std::size_t>(edges[e].first)])];
        if (*slot < 0) {
            *slot = static_cast<int>(groups.size());
            groups.emplace_back();
        }
        groups[static_cast<std::size_t>(*slot)].push_back(r);
    }
    return groups;
}

// Marks the rows of `group` (ascending) that are independent of the earlier rows of the group:
// a rank-revealing sparse QR of their Φqᵀ (unit columns) in natural column order.
void keepIndependentRows(const KktSolver::RowMatrix& Phi_q, const std::vector<int>& group,
                         std::vector<char>& kept) {
    // The group's rows on the columns they touch, as the columns of A.
    std::map<int, int> columnOf;
    for (const int r : group)
        for (KktSolver::RowMatrix::InnerIterator it(Phi_q, r); it; ++it)
            columnOf.emplace(static_cast<int>(it.col()), 0);
    int next = 0;
    for (auto& [column, index] : columnOf) index = next++;
    std::vector<Eigen::Triplet<double>> entries;
    for (int k = 0; k < static_cast<int>(group.size()); ++k)
        for (KktSolver::RowMatrix::InnerIterator it(Phi_q, group[static_cast<std::size_t>(k)]); it;
             ++it)
            entries.emplace_back(columnOf[static_cast<int>(it.col())], k, it.value());
    Eigen::SparseMatrix<double> A(std::max(1, next), static_cast<Eigen::Index>(group.size()));
    A.setFromTriplets(entries.begin(), entries.end());
    for (int k = 0; k < A.outerSize(); ++k) {
        const double n = A.col(k).norm();
        if (n > 0.0) A.col(k) /= n;
    }
    A.makeCompressed();
    Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::NaturalOrdering<int>> qr;
    qr.setPivotThreshold(kRankTolerance);
    qr.compute(A);
    const auto& perm = qr.colsPermutation().indices();
    for (Eigen::Index k = 0; k < qr.rank(); ++k)
        kept[static_cast<std::size_t>(group[static_cast<std::size_t>(perm(k))])] = 1;
}

}  // namespace

void KktSolver::analyze(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv) {
    rows_ = static_cast<int>(Phi_q.rows());
    Minv_ = Minv;
    Phi_q_ = Phi_q;
    reanalyzedHere_ = false;
    fullPatternBuilt_ = fullFactoredHere_ = false;
    singularRow_ = -1;
    bestPivot_.assign(static_cast<std::size_t>(rows_), 0.0);
    chooseIndependentRows(Phi_q_);
    settleRows(Phi_q_);
    bestRank_ = rank();
}

void KktSolver::rememberGroups(const std::vector<std::vector<int>>& groups) {
    rowGroup_.assign(static_cast<std::size_t>(rows_), -1);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (int r : groups[g]) rowGroup_[static_cast<std::size_t>(r)] = static_cast<int>(g);
}

bool KktSolver::singularPositionNear() const {
    if (rank() < bestRank_) return true;
    if (!nearSingular_) return false;
    return geometric_.size() != Phi_q_.cols() || geometricallyWeak(suspects_);
}

bool KktSolver::geometricallyWeak(const std::vector<int>& rows) const {
    std::vector<char> groups;
    for (int r : rows) {
        const int g = rowGroup_[static_cast<std::size_t>(r)];
        if (g < 0) return true;  // (cannot tell: as the mass metric says)
        if (static_cast<std::size_t>(g) >= groups.size())
            groups.resize(static_cast<std::size_t>(g) + 1, 0);
        groups[static_cast<std::size_t>(g)] = 1;
    }
    // The active rows of those groups in the order S's factorisation eliminated them (rows of
    // other groups are independent of them, so the pivots are those of the whole S).
    std::vector<int> order;
    for (const int k : schur_.eliminationOrder()) {
        const int row = active_[static_cast<std::size_t>(k)];
        const int g = rowGroup_[static_cast<std::size_t>(row)];
        if (g >= 0 && static_cast<std::size_t>(g) < groups.size() &&
            groups[static_cast<std::size_t>(g)] && !compliant(row))
            order.push_back(row);
    }
    const auto n = static_cast<Eigen::Index>(order.size());
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j <= i; ++j) {
            double sum = 0.0;
            RowMatrix::InnerIterator a(Phi_q_, order[static_cast<std::size_t>(i)]);
            RowMatrix::InnerIterator b(Phi_q_, order[static_cast<std::size_t>(j)]);
            while (a && b) {  // (the rows' columns ascending)
                if (a.index() < b.index()) {
                    ++a;
                } else if (b.index() < a.index()) {
                    ++b;
                } else {
                    sum += a.value() * geometric_(a.index()) * b.value();
                    ++a;
                    ++b;
                }
            }
            S(i, j) = S(j, i) = sum;
        }
    const Eigen::VectorXd diagonal = S.diagonal();
    for (Eigen::Index k = 0; k < n; ++k) {
        const double d = S(k, k);
        if (!(d > kNearSingularDrop * diagonal(k))) return true;
        for (Eigen::Index i = k + 1; i < n; ++i) {
            const double f = S(i, k) / d;
            for (Eigen::Index j = k + 1; j <= i; ++j) S(i, j) -= f * S(j, k);
        }
    }
    return false;
}

void KktSolver::chooseIndependentRows(const RowMatrix& Phi_q) {
    active_.clear();
    redundant_.clear();
    if (rows_ == 0) return;
    // Rows only depend on each other within a closed loop: rows that join two bodies (or a
    // body and the ground) across a bridge of the body graph — an edge on no cycle — are
    // independent of all other rows, so the rank analysis splits into the pair of bodies of
    // each bridge and each 2-edge-connected part of the graph, in row order within each. A
    // chain or a tree of n bodies costs O(n) instead of a QR of the whole Φqᵀ, whose fill-in
    // grows like n³.
    std::vector<char> kept(static_cast<std::size_t>(rows_), 0);
    if (compliance_.size() > 0 && compliance_.maxCoeff() > 0.0) {
        // Compliant rows never depend on others (their compliance keeps S regular): the
        // exact rows are analysed alone, the compliant ones zeroed out of the QR and kept.
        RowMatrix exact = Phi_q;
        for (int r = 0; r < rows_; ++r) {
            if (!compliant(r)) continue;
            kept[static_cast<std::size_t>(r)] = 1;
            for (RowMatrix::InnerIterator it(exact, r); it; ++it) it.valueRef() = 0.0;
        }
        std::vector<char> exactKept(static_cast<std::size_t>(rows_), 0);
        const std::vector<std::vector<int>> groups = independentRowGroups(exact, onLoop_);
        rememberGroups(groups);
        for (const std::vector<int>& group : groups) keepIndependentRows(exact, group, exactKept);
        for (int r = 0; r < rows_; ++r)
            if (!compliant(r) && exactKept[static_cast<std::size_t>(r)])
                kept[static_cast<std::size_t>(r)] = 1;
    } else {
        const std::vector<std::vector<int>> groups = independentRowGroups(Phi_q, onLoop_);
        rememberGroups(groups);
        for (const std::vector<int>& group : groups) keepIndependentRows(Phi_q, group, kept);
    }
    for (int r = 0; r < rows_; ++r)
        (kept[static_cast<std::size_t>(r)] ? active_ : redundant_).push_back(r);
}

// Factors S over the rows chosen, dropping the row of the weakest pivot while one is small
// (the QR's tolerance is on directions; S's pivots weigh them with the masses).
void KktSolver::settleRows(const RowMatrix& Phi_q) {
    for (;;) {
        schur_.analyze(Phi_q, active_);
        if (factorNumeric()) return;
        const auto at = std::lower_bound(active_.begin(), active_.end(), singularRow_);
        active_.erase(at);
        redundant_.insert(std::lower_bound(redundant_.begin(), redundant_.end(), singularRow_),
                          singularRow_);
    }
}

namespace {
constexpr int kRowsPerWord = 52;  // rows a double holds exactly as bits of an integer
}

int KktSolver::memorySize(int rows, bool pivots) {
    return 1 + (rows + kRowsPerWord - 1) / kRowsPerWord + (pivots ? rows : 0);
}

void KktSolver::saveMemory(double* out, bool pivots) const {
    const int size = memorySize(rows_, pivots);
    std::fill(out, out + size, 0.0);
    out[0] = static_cast<double>(bestRank_);
    for (const int r : redundant_) {
        double& word = out[1 + r / kRowsPerWord];
        word = static_cast<double>(static_cast<std::uint64_t>(word) |
                                   (std::uint64_t(1) << (r % kRowsPerWord)));
    }
    if (pivots) {
        double* best = out + memorySize(rows_, false);
        for (int r = 0; r < rows_ && static_cast<std::size_t>(r) < bestPivot_.size(); ++r)
            best[r] = bestPivot_[static_cast<std::size_t>(r)];
    }
}

void KktSolver::restoreMemory(const double* in, bool pivots) {
    if (rows_ == 0 || !(in[0] >= 0.0) || !(in[0] <= static_cast<double>(rows_))) return;
    std::vector<int> active, redundant;
    for (int r = 0; r < rows_; ++r) {
        const double word = in[1 + r / kRowsPerWord];
        const bool dropped = word >= 0.0 && word < 0x1p52 && !compliant(r) &&
                             ((static_cast<std::uint64_t>(word) >> (r % kRowsPerWord)) & 1u);
        (dropped ? redundant : active).push_back(r);
    }
    bestRank_ = static_cast<int>(in[0]);
    if (pivots) {
        const double* best = in + memorySize(rows_, false);
        bestPivot_.assign(static_cast<std::size_t>(rows_), 0.0);
        for (int r = 0; r < rows_; ++r)
            if (std::isfinite(best[r]) && best[r] > 0.0)
                bestPivot_[static_cast<std::size_t>(r)] = best[r];
    }
    if (active != active_) {
        active_ = std::move(active);
        redundant_ = std::move(redundant);
        if (!active_.empty()) schur_.analyze(Phi_q_, active_);
    }
    reanalyzedHere_ = false;
    fullFactoredHere_ = false;
}

void KktSolver::reanalyze() {
    ++reanalyses_;
    reanalyzedHere_ = true;
    chooseIndependentRows(Phi_q_);
    settleRows(Phi_q_);
    bestRank_ = std::max(bestRank_, rank());
}

bool KktSolver::factorize(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv) {
    Minv_ = Minv;
    // The pattern is the one analysed: only the values are copied (the whole matrix where its
    // size says otherwise).
    if (Phi_q.isCompressed() && Phi_q_.isCompressed() && Phi_q.rows() == Phi_q_.rows() &&
        Phi_q.cols() == Phi_q_.cols() && Phi_q.nonZeros() == Phi_q_.nonZeros())
        std::copy(Phi_q.valuePtr(), Phi_q.valuePtr() + Phi_q.nonZeros(), Phi_q_.valuePtr());
    else
        Phi_q_ = Phi_q;
    singularRow_ = -1;
    reanalyzedHere_ = false;
    fullFactoredHere_ = false;
    if (factorNumeric()) return true;
    // A non-finite Φq fails the pivot test too (its NaN reaches S): looked for only then.
    for (int r = 0; r < rows_; ++r)
        for (RowMatrix::InnerIterator it(Phi_q_, r); it; ++it)
            if (!std::isfinite(it.value())) {
                singularRow_ = r;
                return false;
            }
    reanalyze();  // a singular position: the rows lost rank here
    return true;
}

// S over the active rows, filled in place and factored. False for a pivot below
// the singular pivot (setSingularPivot) of the largest, with singularRow_ the row of the weakest.
bool KktSolver::factorNumeric() {
    singularRow_ = -1;
    weakestPivot_ = 1.0;
    weakestLoopPivot_ = 1.0;
    nearSingular_ = false;
    if (active_.empty()) return true;
    schur_.factor(Phi_q_, Minv_, 0.0, compliance_.size() > 0 ? &compliance_ : nullptr);
    // Each pivot against its row's diagonal: d_k / S_kk is the squared sine of the angle
    // (in the mass metric) between row k and the rows eliminated before it, whatever the
    // row's units.
    int worst = -1;
    double weakest = singularPivot_;
    std::vector<int> suspects;  // loop rows far below their best pivot
    for (const int k : schur_.eliminationOrder()) {
        if (compliant(active_[static_cast<std::size_t>(k)])) continue;
        const double diagonal = schur_.diagonal(k);
        const double relative = diagonal > 0.0 ? schur_.pivot(k) / diagonal : -1.0;
        weakestPivot_ = std::min(weakestPivot_, relative);
        if (!(relative >= weakest)) {
            weakest = relative;
            worst = k;
        }
        // A pivot of a row on a loop far below the best it has had: a singular position is
        // near. Rows across bridges (a chain, a tree) never depend on rows elsewhere, and their
        // pivots move with the conditioning of S (a long chain's ~1/N², and by orders of
        // magnitude as it folds): they are watched by the singular pivot only.
        const auto row = static_cast<std::size_t>(active_[static_cast<std::size_t>(k)]);
        if (onLoop_[row]) {
            weakestLoopPivot_ = std::min(weakestLoopPivot_, relative);
            if (relative < kNearSingularDrop * bestPivot_[row])
                suspects.push_back(static_cast<int>(row));
            bestPivot_[row] = std::max(bestPivot_[row], relative);
        }
    }
    if (worst >= 0) {
        singularRow_ = active_[static_cast<std::size_t>(worst)];
        return false;
    }
    nearSingular_ = !suspects.empty();
    suspects_ = std::move(suspects);
    return true;
}

// The dropped row the solution x misses most, relative to the scale of its equation
// Φq_r x = sign · target_r (|Φq_r|₁ ‖x‖∞ + |target_r|: a row whose terms all vanish, e.g. an
// out-of-plane row of a planar motion, is met when its miss is round-off of that scale; for
// a correction, at least the scale of the equation corrected), and by how much.
int KktSolver::worstDroppedRow(const Eigen::VectorXd& x, const Eigen::VectorXd& target, double sign,
                               double& relative, double termScale) const {
    int worst = -1;
    relative = 0.0;
    const double xScale = x.size() > 0 ? x.cwiseAbs().maxCoeff() : 0.0;
    for (const int r : redundant_) {
        double sum = 0.0, rowNorm = 0.0;
        for (RowMatrix::InnerIterator it(Phi_q_, r); it; ++it) {
            sum += it.value() * x(it.col());
            rowNorm += std::abs(it.value());
        }
        const double size = std::max(termScale, rowNorm * xScale + std::abs(target(r)));
        const double miss = std::abs(sum - sign * target(r));
        if (miss > kDroppedRowTolerance * size && miss > relative * size) {
            relative = miss / size;
            worst = r;
        }
    }
    return worst;
}

void KktSolver::solveActive(const Eigen::VectorXd& Minv_g, const Eigen::VectorXd& c,
                            Eigen::VectorXd& x, Eigen::VectorXd& lambda) const {
    lambda.setZero(rows_);
    if (active_.empty()) {
        x = Minv_g;
        return;
    }
    schur_.solve(Minv_g, c, x, lambda);
}

void KktSolver::solve(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                      Eigen::VectorXd& lambda) {
    const Eigen::VectorXd Minv_g = Minv_.cwiseProduct(g);
    solveActive(Minv_g, c, x, lambda);
    unmetRow_ = -1;
    unmetResidual_ = 0.0;
    if (redundant_.empty()) return;
    int row = worstDroppedRow(x, c, 1.0, unmetResidual_);
    if (row >= 0 && !reanalyzedHere_) {
        // A dropped row the solution misses: the mechanism has left the position where the
        // row depended on the others. Choose the rows again here and solve again.
        reanalyze();
        solveActive(Minv_g, c, x, lambda);
        row = worstDroppedRow(x, c, 1.0, unmetResidual_);
    }
    unmetRow_ = row;
}

void KktSolver::refine(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                       Eigen::VectorXd& lambda) const {
    if (active_.empty() || !Minv_.allFinite() || x.size() != Minv_.size()) return;
    Eigen::VectorXd r1 = g - x.cwiseQuotient(Minv_);
    r1.noalias() -= Phi_q_.transpose() * lambda;
    Eigen::VectorXd r2 = c;
    r2.noalias() -= Phi_q_ * x;
    for (const int r : redundant_) r2(r) = 0.0;
    Eigen::VectorXd dx, dlambda;
    solveActive(Minv_.cwiseProduct(r1), r2, dx, dlambda);
    if (!dx.allFinite() || !dlambda.allFinite()) return;
    x += dx;
    lambda += dlambda;
}

void KktSolver::projectActive(const Eigen::VectorXd& r, Eigen::VectorXd& x,
                              Eigen::VectorXd* mu) const {
    if (mu) mu->setZero(rows_);
    if (active_.empty()) {
        x.setZero(Minv_.size());
        return;
    }
    schur_.correct(r, x, mu);
}

void KktSolver::project(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu,
                        double termScale) {
    projectActive(r, x, mu);
    unmetRow_ = -1;
    unmetResidual_ = 0.0;
    if (redundant_.empty() || !(termScale > 0.0)) return;
    int row = worstDroppedRow(x, r, -1.0, unmetResidual_, termScale);
    if (row >= 0 && !reanalyzedHere_) {
        reanalyze();
        projectActive(r, x, mu);
        row = worstDroppedRow(x, r, -1.0, unmetResidual_, termScale);
    }
    unmetRow_ = row;
}

void KktSolver::projectAdd(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* muSum) {
    unmetRow_ = -1;
    unmetResidual_ = 0.0;
    if (!active_.empty()) schur_.correctAdd(r, x, muSum);
}

void KktSolver::projectRegularized(const Eigen::VectorXd& r, Eigen::VectorXd& x) {
    x.setZero(Minv_.size());
    if (rows_ == 0) return;
    if (!fullPatternBuilt_) {
        std::vector<int> all(static_cast<std::size_t>(rows_));
        for (int k = 0; k < rows_; ++k) all[static_cast<std::size_t>(k)] = k;
        full_.analyze(Phi_q_, all);
        fullPatternBuilt_ = true;
    }
    if (!fullFactoredHere_) {
        full_.factor(Phi_q_, Minv_);  // S's diagonal first, for ε
        double largest = 0.0;
        for (int k = 0; k < rows_; ++k) largest = std::max(largest, full_.diagonal(k));
        full_.factor(Phi_q_, Minv_, kRegularisation * std::max(largest, 1e-300));
        fullFactoredHere_ = true;
    }
    Eigen::VectorXd mu = r;
    full_.solveInPlace(mu);
    full_.multiplyTransposedAdd(mu, -1.0, x);
    x.array() *= Minv_.array();
}

double equationScale(const KktSolver::RowMatrix& A, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& b) {
    double scale = 0.0;
    for (Eigen::Index r = 0; r < A.outerSize(); ++r) {
        double sum = std::abs(b(r));
        for (KktSolver::RowMatrix::InnerIterator it(A, r); it; ++it)
            sum += std::abs(it.value() * x(it.col()));
        scale = std::max(scale, sum);
    }
    return scale;
}

}  // namespace engine
