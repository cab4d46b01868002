#include "engine/solver/block_ldlt.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace engine {
namespace {

// A pivot below this fraction of its row's diagonal is not used as it is: the row is decoupled
// (its pivot taken as S_kk) so that the rest of the factorisation stays finite. The caller drops
// rows far above this (kkt_solver.cpp: 1e-10), so its decisions see the true pivot.
constexpr double kDecouplePivot = 1e-14;

template <int W>
using MatW = Eigen::Matrix<double, W, W>;
template <int W>
using Mat6W = Eigen::Matrix<double, 6, W>;
template <int W>
using VecW = Eigen::Matrix<double, W, 1>;
using Vec6 = Eigen::Matrix<double, 6, 1>;

// Calls f.template operator()<W>() for the pattern's block width W (1 … 6).
template <typename F>
void withWidth(int width, F&& f) {
    // A dispatch table, one width a line:
    // clang-format off
    switch (width) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 5: f.template operator()<5>(); break;
    default: f.template operator()<6>(); break;
    }
    // clang-format on
}

// D += sign · Aᵀ B on and below the diagonal only (D symmetric: S's diagonal blocks, whose upper
// half the factorisation never reads), A and B R × W, D W × W, all column-major; with `assign`,
// D = sign · Aᵀ B there.
template <int R, int W, bool assign = false>
inline void addLowerProduct(const double* A, const double* B, double sign, double* D) {
#pragma GCC unroll 6
    for (int k = 0; k < W; ++k)
#pragma GCC unroll 6
        for (int i = k; i < W; ++i) {
            // Packed dot products (Eigen's, two lanes at a time) instead of one chain of sums.
            const double sum = Eigen::Map<const Eigen::Matrix<double, R, 1>>(A + R * i).dot(
                Eigen::Map<const Eigen::Matrix<double, R, 1>>(B + R * k));
            if constexpr (assign)
                D[W * k + i] = sign * sum;
            else
                D[W * k + i] += sign * sum;
        }
}

// x ← L x and x ← Lᵀ x for L lower triangular, W × W column-major (L̃⁻¹), in place.
template <int W>
inline void lowerTimes(const double* L, double* x) {
#pragma GCC unroll 6
    for (int i = W - 1; i >= 0; --i) {
        double sum = 0.0;
#pragma GCC unroll 6
        for (int p = 0; p <= i; ++p) sum += L[W * p + i] * x[p];
        x[i] = sum;
    }
}
template <int W>
inline void lowerTransposedTimes(const double* L, double* x) {
#pragma GCC unroll 6
    for (int i = 0; i < W; ++i) {
        double sum = 0.0;
#pragma GCC unroll 6
        for (int p = i; p < W; ++p) sum += L[W * i + p] * x[p];
        x[i] = sum;
    }
}

}  // namespace

void BlockLdlt::analyze(const RowMatrix& Phi_q, const std::vector<int>& rows) {
    n_ = static_cast<int>(rows.size());
    // The bodies each row touches, from its whole 6-column blocks.
    std::map<std::vector<int>, std::vector<int>> rowsOfBodies;  // bodies → local rows, ascending
    std::vector<std::vector<int>> startsOfRow(rows.size());  // per local row: value index per body
    for (int k = 0; k < n_; ++k) {
        const int r = rows[static_cast<std::size_t>(k)];
        std::vector<int> bodies;
        const int begin = Phi_q.outerIndexPtr()[r], end = Phi_q.outerIndexPtr()[r + 1];
        for (int p = begin; p < end; p += 6) {
            const int column = Phi_q.innerIndexPtr()[p];
            if (column % 6 != 0 || p + 6 > end || Phi_q.innerIndexPtr()[p + 5] != column + 5)
                throw std::invalid_argument(
                    "BlockLdlt: row " + std::to_string(r) +
                    " of the Jacobian does not store whole 6-column blocks");
            bodies.push_back(column / 6);
            startsOfRow[static_cast<std::size_t>(k)].push_back(p);
        }
        rowsOfBodies[bodies].push_back(k);
    }

    // Blocks: rows touching the same bodies, at most 6 to a block.
    struct Draft {
        std::vector<int> bodies, local;
    };
    std::vector<Draft> drafts;
    for (const auto& [bodies, local] : rowsOfBodies)
        for (std::size_t first = 0; first < local.size(); first += 6)
            drafts.push_back(
                {bodies, std::vector<int>(local.begin() + static_cast<std::ptrdiff_t>(first),
                                          local.begin() + static_cast<std::ptrdiff_t>(
                                                              std::min(local.size(), first + 6)))});
    // Number the drafts by their first row, so that the order below does not depend on body ids.
    std::sort(drafts.begin(), drafts.end(),
              [](const Draft& a, const Draft& b) { return a.local[0] < b.local[0]; });
    const int blocks = static_cast<int>(drafts.size());
    blocks_ = blocks;
    width_ = 1;
    for (const Draft& d : drafts) width_ = std::max(width_, static_cast<int>(d.local.size()));
    const int W = width_;

    // The block graph: blocks sharing a body are coupled.
    std::map<int, std::vector<int>> blocksOfBody;
    for (int d = 0; d < blocks; ++d)
        for (const int b : drafts[static_cast<std::size_t>(d)].bodies) blocksOfBody[b].push_back(d);
    std::vector<std::set<int>> adjacent(static_cast<std::size_t>(blocks));
    for (const auto& [body, list] : blocksOfBody)
        for (const int a : list)
            for (const int c : list)
                if (a != c) adjacent[static_cast<std::size_t>(a)].insert(c);

    // Minimum degree elimination on the block graph, recording the fill: a tree (a chain, a
    // robot's links) eliminates leaf by leaf with none. Ties go to the block that reached its
    // degree first (first come, first served), so that leaves are taken from every branch in
    // turn: a chain is eliminated from both ends towards its middle, and the factorisation and
    // the solves follow two independent chains of dependent block products instead of one
    // twice as long, which the processor overlaps.
    std::vector<std::vector<int>> pattern(static_cast<std::size_t>(blocks));  // later neighbours
    std::vector<int> position(static_cast<std::size_t>(blocks), -1);
    {
        struct Entry {
            std::size_t degree;
            int stamp, block;
            bool operator<(const Entry& o) const {
                return degree != o.degree ? degree < o.degree : stamp < o.stamp;
            }
        };
        std::set<Entry> queue;
        std::vector<int> stamp(static_cast<std::size_t>(blocks));
        int clock = 0;
        for (int d = 0; d < blocks; ++d) {
            stamp[static_cast<std::size_t>(d)] = clock++;
            queue.insert({adjacent[static_cast<std::size_t>(d)].size(), d, d});
        }
        int next = 0;
        while (!queue.empty()) {
            const int v = queue.begin()->block;
            queue.erase(queue.begin());
            position[static_cast<std::size_t>(v)] = next++;
            const std::set<int> around = adjacent[static_cast<std::size_t>(v)];
            pattern[static_cast<std::size_t>(v)].assign(around.begin(), around.end());
            for (const int u : around) {
                auto& adj = adjacent[static_cast<std::size_t>(u)];
                auto& when = stamp[static_cast<std::size_t>(u)];
                queue.erase({adj.size(), when, u});
                adj.erase(v);
                for (const int w : around)
                    if (w != u) adj.insert(w);
                when = clock++;
                queue.insert({adj.size(), when, u});
            }
            adjacent[static_cast<std::size_t>(v)].clear();
        }
    }

    // Lay the blocks out in elimination order.
    std::vector<int> byPosition(static_cast<std::size_t>(blocks));
    for (int d = 0; d < blocks; ++d)
        byPosition[static_cast<std::size_t>(position[static_cast<std::size_t>(d)])] = d;
    blockRows_.assign(static_cast<std::size_t>(W * blocks), -1);
    blockPhiRows_.assign(static_cast<std::size_t>(W * blocks), -1);
    sideBegin_.assign(1, 0);
    sideBody_.clear();
    sideStart_.clear();
    order_.clear();
    std::vector<std::map<int, int>> sideOfBody(
        static_cast<std::size_t>(blocks));  // per block: body → side
    for (int j = 0; j < blocks; ++j) {
        const Draft& draft =
            drafts[static_cast<std::size_t>(byPosition[static_cast<std::size_t>(j)])];
        for (std::size_t r = 0; r < draft.local.size(); ++r) {
            blockRows_[static_cast<std::size_t>(W * j) + r] = draft.local[r];
            blockPhiRows_[static_cast<std::size_t>(W * j) + r] =
                rows[static_cast<std::size_t>(draft.local[r])];
            order_.push_back(draft.local[r]);
        }
        for (std::size_t s = 0; s < draft.bodies.size(); ++s) {
            sideOfBody[static_cast<std::size_t>(j)][draft.bodies[s]] =
                static_cast<int>(sideBody_.size());
            sideBody_.push_back(draft.bodies[s]);
            for (std::size_t r = 0; r < static_cast<std::size_t>(W); ++r)
                sideStart_.push_back(r < draft.local.size()
                                         ? startsOfRow[static_cast<std::size_t>(draft.local[r])][s]
                                         : -1);
        }
        sideBegin_.push_back(static_cast<int>(sideBody_.size()));
    }

    // L's pattern per column (block rows ascending) and where each L block is stored.
    columnBegin_.assign(1, 0);
    lowerRow_.clear();
    std::vector<std::map<int, int>> lowerAt(
        static_cast<std::size_t>(blocks));  // per column: row → L block
    for (int j = 0; j < blocks; ++j) {
        std::vector<int> rowsBelow;
        for (const int u :
             pattern[static_cast<std::size_t>(byPosition[static_cast<std::size_t>(j)])])
            rowsBelow.push_back(position[static_cast<std::size_t>(u)]);
        std::sort(rowsBelow.begin(), rowsBelow.end());
        for (const int i : rowsBelow) {
            lowerAt[static_cast<std::size_t>(j)][i] = static_cast<int>(lowerRow_.size());
            lowerRow_.push_back(i);
        }
        columnBegin_.push_back(static_cast<int>(lowerRow_.size()));
    }
    auto target = [&](int i, int k) {  // block (i, k), i ≥ k
        return i == k ? -1 - i : lowerAt[static_cast<std::size_t>(k)].at(i);
    };

    // S's blocks: each pair of blocks sharing a body (and each block with itself). The first
    // contribution to a block is assigned; the blocks none reaches (fill) are zeroed.
    contributions_.clear();
    std::set<int> reached;
    auto contribute = [&](int a, int c, int to) {
        contributions_.push_back({a, c, to, reached.insert(to).second});
    };
    for (int j = 0; j < blocks; ++j)
        for (const auto& [body, side] : sideOfBody[static_cast<std::size_t>(j)]) {
            contribute(side, side, -1 - j);
            for (int i = j + 1; i < blocks; ++i) {
                const auto& sides = sideOfBody[static_cast<std::size_t>(i)];
                if (const auto at = sides.find(body); at != sides.end())
                    contribute(at->second, side, target(i, j));
            }
        }
    untouched_.clear();
    for (int j = 0; j < blocks; ++j)
        if (!reached.count(-1 - j)) untouched_.push_back(-1 - j);
    for (int l = 0; l < static_cast<int>(lowerRow_.size()); ++l)
        if (!reached.count(l)) untouched_.push_back(l);
    // The updates of each column, in the order they are applied.
    updates_.clear();
    updateBegin_.assign(1, 0);
    for (int j = 0; j < blocks; ++j) {
        for (int a = columnBegin_[static_cast<std::size_t>(j)];
             a < columnBegin_[static_cast<std::size_t>(j) + 1]; ++a)
            for (int c = columnBegin_[static_cast<std::size_t>(j)]; c <= a; ++c)
                updates_.push_back({a, c,
                                    target(lowerRow_[static_cast<std::size_t>(a)],
                                           lowerRow_[static_cast<std::size_t>(c)])});
        updateBegin_.push_back(static_cast<int>(updates_.size()));
    }

    const std::size_t w = static_cast<std::size_t>(W);
    jacobian_.assign(6 * w * sideBody_.size(), 0.0);
    scaled_.assign(6 * w * sideBody_.size(), 0.0);
    lower_.assign(w * w * lowerRow_.size(), 0.0);
    scaledLower_.assign(w * w * lowerRow_.size(), 0.0);
    diagonal_.assign(w * w * static_cast<std::size_t>(blocks), 0.0);
    work_.assign(w * static_cast<std::size_t>(blocks), 0.0);
    sDiagonal_.assign(static_cast<std::size_t>(n_), 0.0);
    pivot_.assign(static_cast<std::size_t>(n_), 0.0);
}

template <int W>
void BlockLdlt::factorBlocks(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv, double shift,
                             const Eigen::VectorXd* rowShift) {
    constexpr std::size_t w = W;
    const double* values = Phi_q.valuePtr();
    auto jacobian = [&](std::size_t s) {
        return Eigen::Map<Mat6W<W>>(jacobian_.data() + 6 * w * s);
    };
    auto scaled = [&](std::size_t s) { return Eigen::Map<Mat6W<W>>(scaled_.data() + 6 * w * s); };
    auto lower = [&](std::size_t l) { return Eigen::Map<MatW<W>>(lower_.data() + w * w * l); };
    auto diagonal = [&](std::size_t j) {
        return Eigen::Map<MatW<W>>(diagonal_.data() + w * w * j);
    };

    // Φ_ibᵀ per side (a row of Φ copied whole into a column), and M_b⁻¹ Φ_ibᵀ.
    for (std::size_t s = 0; s < sideBody_.size(); ++s) {
        auto JT = jacobian(s);
        for (std::size_t r = 0; r < w; ++r) {
            const int start = sideStart_[w * s + r];
            if (start < 0)
                JT.col(static_cast<Eigen::Index>(r)).setZero();
            else
                JT.col(static_cast<Eigen::Index>(r)) = Eigen::Map<const Vec6>(values + start);
        }
        scaled(s).noalias() = Minv.segment<6>(6 * sideBody_[s]).asDiagonal() * JT;
    }
    // S's blocks; the fill starts at zero. L blocks are stored transposed (U = Lᵀ: every product
    // below is then of the form Aᵀ B or A B).
    for (const int t : untouched_) {
        if (t >= 0)
            lower(static_cast<std::size_t>(t)).setZero();
        else
            diagonal(static_cast<std::size_t>(-1 - t)).setZero();
    }
    for (const Contribution& c : contributions_) {
        if (c.target >= 0) {
            auto L = lower(static_cast<std::size_t>(c.target));
            const auto product = scaled(static_cast<std::size_t>(c.c)).transpose() *
                                 jacobian(static_cast<std::size_t>(c.a));
            if (c.first)
                L.noalias() = product;
            else
                L.noalias() += product;
        } else {  // a side with itself: symmetric
            const double* A = scaled_.data() + 6 * w * static_cast<std::size_t>(c.a);
            const double* B = jacobian_.data() + 6 * w * static_cast<std::size_t>(c.c);
            double* D = diagonal_.data() + w * w * static_cast<std::size_t>(-1 - c.target);
            if (c.first)
                addLowerProduct<6, W, true>(A, B, 1.0, D);
            else
                addLowerProduct<6, W>(A, B, 1.0, D);
        }
    }
    for (int j = 0; j < blocks_; ++j) {
        auto D = diagonal(static_cast<std::size_t>(j));
        for (int r = 0; r < W; ++r) {
            const int k = blockRows_[w * static_cast<std::size_t>(j) + static_cast<std::size_t>(r)];
            if (k < 0) {
                D(r, r) = 1.0;  // padding: decoupled
                continue;
            }
            sDiagonal_[static_cast<std::size_t>(k)] = D(r, r);
            D(r, r) += shift;
            if (rowShift)
                D(r, r) += (*rowShift)(
                    blockPhiRows_[w * static_cast<std::size_t>(j) + static_cast<std::size_t>(r)]);
        }
    }

    for (int j = 0; j < blocks_; ++j) {
        // W_jj = L̃ D L̃ᵀ (L̃ unit lower triangular), with each row's pivot d kept: no square
        // root on the path to the next block (this block's updates need D⁻¹ only), so the
        // chain of blocks waits on one division a row. What the solves need (W_jj⁻¹, L̂) is
        // formed after.
        auto Wjj = diagonal(static_cast<std::size_t>(j));
        MatW<W> unitLower = MatW<W>::Identity(), E = MatW<W>::Zero();  // E(i, p) = L̃_ip d_p
        double inverseD[W];
#pragma GCC unroll 6
        for (int r = 0; r < W; ++r) {
            double d = Wjj(r, r);
#pragma GCC unroll 6
            for (int p = 0; p < r; ++p) d -= unitLower(r, p) * E(r, p);
            const int k = blockRows_[w * static_cast<std::size_t>(j) + static_cast<std::size_t>(r)];
            if (k >= 0) {
                pivot_[static_cast<std::size_t>(k)] = d;
                double full = sDiagonal_[static_cast<std::size_t>(k)] + shift;
                if (rowShift)
                    full += (*rowShift)(blockPhiRows_[w * static_cast<std::size_t>(j) +
                                                      static_cast<std::size_t>(r)]);
                if (!(d > kDecouplePivot * full)) d = full > 0.0 ? full : 1.0;
            }
            inverseD[r] = 1.0 / d;
#pragma GCC unroll 6
            for (int i = r + 1; i < W; ++i) {
                double e = Wjj(i, r);
#pragma GCC unroll 6
                for (int p = 0; p < r; ++p) e -= unitLower(i, p) * E(r, p);
                E(i, r) = e;
                unitLower(i, r) = e * inverseD[r];
            }
        }
        // L̃⁻¹ (unit lower triangular: no division).
        MatW<W> unitInverse = MatW<W>::Identity();
#pragma GCC unroll 6
        for (int c = 0; c < W; ++c)
#pragma GCC unroll 6
            for (int i = c + 1; i < W; ++i) {
                double sum = 0.0;
#pragma GCC unroll 6
                for (int p = c; p < i; ++p) sum -= unitLower(i, p) * unitInverse(p, c);
                unitInverse(i, c) = sum;
            }
        // Y_ij = L̃⁻¹ W_ijᵀ in L's place and D⁻¹ Y_ij beside it; the blocks after j updated with
        // L_ij L_kjᵀ = Y_ijᵀ D⁻¹ Y_kj.
        const int first = columnBegin_[static_cast<std::size_t>(j)];
        const int last = columnBegin_[static_cast<std::size_t>(j) + 1];
        for (int l = first; l < last; ++l) {
            double* Y = lower_.data() + w * w * static_cast<std::size_t>(l);
            double* Z = scaledLower_.data() + w * w * static_cast<std::size_t>(l);
            for (std::size_t c = 0; c < w; ++c) {
                lowerTimes<W>(unitInverse.data(), Y + w * c);
#pragma GCC unroll 6
                for (int r = 0; r < W; ++r)
                    Z[w * c + static_cast<std::size_t>(r)] =
                        Y[w * c + static_cast<std::size_t>(r)] * inverseD[r];
            }
        }
        auto scaledLower = [&](std::size_t l) {
            return Eigen::Map<MatW<W>>(scaledLower_.data() + w * w * l);
        };
        for (int u = updateBegin_[static_cast<std::size_t>(j)];
             u < updateBegin_[static_cast<std::size_t>(j) + 1]; ++u) {
            const Update& up = updates_[static_cast<std::size_t>(u)];
            const auto Ya = lower(static_cast<std::size_t>(up.a));
            const auto Yc = lower(static_cast<std::size_t>(up.c));
            if (up.target >= 0)
                lower(static_cast<std::size_t>(up.target)).noalias() -=
                    Yc.transpose() * scaledLower(static_cast<std::size_t>(up.a));  // (L_a L_cᵀ)ᵀ
            else if (up.a == up.c)                                                 // symmetric
                addLowerProduct<W, W>(
                    lower_.data() + w * w * static_cast<std::size_t>(up.a),
                    scaledLower_.data() + w * w * static_cast<std::size_t>(up.a), -1.0,
                    diagonal_.data() + w * w * static_cast<std::size_t>(-1 - up.target));
            else
                diagonal(static_cast<std::size_t>(-1 - up.target)).noalias() -=
                    Ya.transpose() * scaledLower(static_cast<std::size_t>(up.c));
        }
        // Off the path, for the solves: W_jj⁻¹ = L̃⁻ᵀ D⁻¹ L̃⁻¹ in W_jj's place and
        // L̂_ijᵀ = W_jj⁻¹ W_ijᵀ = L̃⁻ᵀ D⁻¹ Y_ij in L's (solveBlocks).
        MatW<W> scaledInverse;
#pragma GCC unroll 6
        for (int r = 0; r < W; ++r) scaledInverse.row(r) = inverseD[r] * unitInverse.row(r);
        for (std::size_t c = 0; c < w; ++c)
            lowerTransposedTimes<W>(unitInverse.data(), scaledInverse.data() + w * c);
        Wjj = scaledInverse;
        for (int l = first; l < last; ++l) {
            double* Y = lower_.data() + w * w * static_cast<std::size_t>(l);
            const double* Z = scaledLower_.data() + w * w * static_cast<std::size_t>(l);
            std::copy(Z, Z + w * w, Y);
            for (std::size_t c = 0; c < w; ++c)
                lowerTransposedTimes<W>(unitInverse.data(), Y + w * c);
        }
    }
}

void BlockLdlt::factor(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv, double shift,
                       const Eigen::VectorXd* rowShift) {
    velocities_ = Minv.size();
    withWidth(width_, [&]<int W>() { factorBlocks<W>(Phi_q, Minv, shift, rowShift); });
}

template <int W>
void BlockLdlt::solveBlocks() const {
    constexpr std::size_t w = W;
    auto work = [&](std::size_t j) { return Eigen::Map<VecW<W>>(work_.data() + w * j); };
    auto lower = [&](std::size_t l) {
        return Eigen::Map<const MatW<W>>(lower_.data() + w * w * l);
    };
    auto inverse = [&](std::size_t j) {
        return Eigen::Map<const MatW<W>>(diagonal_.data() + w * w * j);
    };
    // S = L̂ D̂ L̂ᵀ with L̂_ij = W_ij W_jj⁻¹ and D̂ = diag(W_jj): one W × W product per block on
    // the path from one block to the next, each way (a chain's blocks wait on each other).
    // L̂ w = b, and u = D̂⁻¹ w off the path.
    for (int j = 0; j < blocks_; ++j) {
        const VecW<W> v = work(static_cast<std::size_t>(j));
        for (int l = columnBegin_[static_cast<std::size_t>(j)];
             l < columnBegin_[static_cast<std::size_t>(j) + 1]; ++l)
            work(static_cast<std::size_t>(lowerRow_[static_cast<std::size_t>(l)])).noalias() -=
                lower(static_cast<std::size_t>(l)).transpose() * v;
        work(static_cast<std::size_t>(j)).noalias() = inverse(static_cast<std::size_t>(j)) * v;
    }
    // L̂ᵀ x = u.
    for (int j = blocks_ - 1; j >= 0; --j) {
        VecW<W> t = work(static_cast<std::size_t>(j));
        for (int l = columnBegin_[static_cast<std::size_t>(j)];
             l < columnBegin_[static_cast<std::size_t>(j) + 1]; ++l)
            t.noalias() -= lower(static_cast<std::size_t>(l)) *
                           work(static_cast<std::size_t>(lowerRow_[static_cast<std::size_t>(l)]));
        work(static_cast<std::size_t>(j)) = t;
    }
}

void BlockLdlt::solveBlocks() const {
    withWidth(width_, [&]<int W>() { solveBlocks<W>(); });
}

template <int W>
void BlockLdlt::addTransposed(double scale, Eigen::VectorXd& x) const {
    constexpr std::size_t w = W;
    for (int j = 0; j < blocks_; ++j) {
        const VecW<W> v =
            scale * Eigen::Map<const VecW<W>>(work_.data() + w * static_cast<std::size_t>(j));
        for (int s = sideBegin_[static_cast<std::size_t>(j)];
             s < sideBegin_[static_cast<std::size_t>(j) + 1]; ++s)
            x.segment<6>(6 * sideBody_[static_cast<std::size_t>(s)]).noalias() +=
                Eigen::Map<const Mat6W<W>>(jacobian_.data() + 6 * w * static_cast<std::size_t>(s)) *
                v;
    }
}

void BlockLdlt::addTransposed(double scale, Eigen::VectorXd& x) const {
    withWidth(width_, [&]<int W>() { addTransposed<W>(scale, x); });
}

template <int W>
void BlockLdlt::subtractScaledTransposed(Eigen::VectorXd& x) const {
    constexpr std::size_t w = W;
    for (int j = 0; j < blocks_; ++j) {
        const VecW<W> v =
            -Eigen::Map<const VecW<W>>(work_.data() + w * static_cast<std::size_t>(j));
        for (int s = sideBegin_[static_cast<std::size_t>(j)];
             s < sideBegin_[static_cast<std::size_t>(j) + 1]; ++s)
            x.segment<6>(6 * sideBody_[static_cast<std::size_t>(s)]).noalias() +=
                Eigen::Map<const Mat6W<W>>(scaled_.data() + 6 * w * static_cast<std::size_t>(s)) *
                v;
    }
}

template <int W>
void BlockLdlt::gatherProducts(const Eigen::VectorXd& y, const Eigen::VectorXd* c) const {
    constexpr std::size_t w = W;
    for (int j = 0; j < blocks_; ++j) {
        VecW<W> sum = VecW<W>::Zero();
        for (int s = sideBegin_[static_cast<std::size_t>(j)];
             s < sideBegin_[static_cast<std::size_t>(j) + 1]; ++s)
            sum.noalias() +=
                Eigen::Map<const Mat6W<W>>(jacobian_.data() + 6 * w * static_cast<std::size_t>(s))
                    .transpose() *
                y.segment<6>(6 * sideBody_[static_cast<std::size_t>(s)]);
        for (std::size_t k = 0; k < w; ++k) {
            const int row = blockPhiRows_[w * static_cast<std::size_t>(j) + k];
            work_[w * static_cast<std::size_t>(j) + k] =
                row < 0 ? 0.0
                : c     ? sum(static_cast<Eigen::Index>(k)) - (*c)(row)
                        : sum(static_cast<Eigen::Index>(k));
        }
    }
}

void BlockLdlt::solveInPlace(Eigen::VectorXd& b) const {
    const auto w = static_cast<std::size_t>(width_);
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i) {
        const int k = blockRows_[i];
        work_[i] = k >= 0 ? b(k) : 0.0;
    }
    solveBlocks();
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i)
        if (const int k = blockRows_[i]; k >= 0) b(k) = work_[i];
}

void BlockLdlt::gatherRows(const Eigen::VectorXd& r) const {
    const auto w = static_cast<std::size_t>(width_);
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i) {
        const int row = blockPhiRows_[i];
        work_[i] = row >= 0 ? r(row) : 0.0;
    }
}

void BlockLdlt::correct(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu) const {
    if (mu)
        for (std::size_t i = 0; i < blockPhiRows_.size(); ++i)
            if (const int row = blockPhiRows_[i]; row >= 0) (*mu)(row) = 0.0;
    x.setZero(velocities_);
    correctAdd(r, x, mu);
}

void BlockLdlt::correctAdd(const Eigen::VectorXd& r, Eigen::VectorXd& x,
                           Eigen::VectorXd* muSum) const {
    gatherRows(r);
    solveBlocks();
    withWidth(width_, [&]<int W>() { subtractScaledTransposed<W>(x); });
    if (muSum)
        for (std::size_t i = 0; i < blockPhiRows_.size(); ++i)
            if (const int row = blockPhiRows_[i]; row >= 0) (*muSum)(row) += work_[i];
}

void BlockLdlt::solve(const Eigen::VectorXd& y, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                      Eigen::VectorXd& lambda) const {
    withWidth(width_, [&]<int W>() { gatherProducts<W>(y, &c); });
    solveBlocks();
    x = y;
    withWidth(width_, [&]<int W>() { subtractScaledTransposed<W>(x); });
    const auto w = static_cast<std::size_t>(width_);
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i)
        if (const int row = blockPhiRows_[i]; row >= 0) lambda(row) = work_[i];
}

void BlockLdlt::multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
    y.resize(n_);
    withWidth(width_, [&]<int W>() { gatherProducts<W>(x, nullptr); });
    const auto w = static_cast<std::size_t>(width_);
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i)
        if (const int k = blockRows_[i]; k >= 0) y(k) = work_[i];
}

void BlockLdlt::multiplyTransposedAdd(const Eigen::VectorXd& y, double scale,
                                      Eigen::VectorXd& x) const {
    const auto w = static_cast<std::size_t>(width_);
    for (std::size_t i = 0; i < w * static_cast<std::size_t>(blocks_); ++i) {
        const int k = blockRows_[i];
        work_[i] = k >= 0 ? y(k) : 0.0;
    }
    addTransposed(scale, x);
}

}  // namespace engine
