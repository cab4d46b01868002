#include "engine/solver/block_cholesky.h"

#include <algorithm>
#include <cassert>

#include <Eigen/Cholesky>

namespace engine {

void BlockCholesky6::analyse(const std::vector<std::pair<int, int>>& lower, int m) {
    const auto columns = static_cast<std::size_t>(std::max(m, 0));
    start_.assign(columns + 1, 0);
    rows_.clear();
    // (a column's children in the elimination tree: the columns whose first row below the
    // diagonal it is; their rows below it are its rows too)
    std::vector<std::vector<int>>& children = children_;
    std::vector<int>& merged = merged_;
    if (children.size() < columns) children.resize(columns);
    for (std::size_t j = 0; j < columns; ++j) children[j].clear();
    std::size_t at = 0;
    for (std::size_t j = 0; j < columns; ++j) {
        merged.clear();
        for (; at < lower.size() && static_cast<std::size_t>(lower[at].second) == j; ++at)
            merged.push_back(lower[at].first);
        for (const int child : children[j]) {
            const auto c = static_cast<std::size_t>(child);
            merged.insert(merged.end(), rows_.begin() + static_cast<std::ptrdiff_t>(start_[c]) + 1,
                          rows_.begin() + static_cast<std::ptrdiff_t>(start_[c + 1]));
        }
        std::sort(merged.begin(), merged.end());
        merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
        rows_.insert(rows_.end(), merged.begin(), merged.end());
        start_[j + 1] = rows_.size();
        if (!merged.empty())
            children[static_cast<std::size_t>(merged.front())].push_back(static_cast<int>(j));
    }
    flops_ = 0.0;
    for (std::size_t j = 0; j < columns; ++j) {
        const double below = 6.0 * static_cast<double>(start_[j + 1] - start_[j]);
        for (int c = 0; c < 6; ++c) flops_ += (below + 5 - c) * (below + 5 - c);
    }
    diagonal_.resize(columns);
    below_.resize(rows_.size());
}

std::size_t BlockCholesky6::find(int i, std::size_t j) const {
    const auto first = rows_.begin() + static_cast<std::ptrdiff_t>(start_[j]);
    const auto last = rows_.begin() + static_cast<std::ptrdiff_t>(start_[j + 1]);
    const auto at = std::lower_bound(first, last, i);
    assert(at != last && *at == i);  // (elimination fills in every block it updates)
    return static_cast<std::size_t>(at - rows_.begin());
}

bool BlockCholesky6::factorise(const std::vector<Entry>& entries) {
    const std::size_t columns = diagonal_.size();
    for (Block& b : diagonal_) b.setZero();
    for (Block& b : below_) b.setZero();
    for (const Entry& entry : entries) {
        // (a block outside the analysed pattern — above the diagonal, beyond the columns, or
        // where analyse() was told of none — is refused, not written somewhere else)
        if (entry.col < 0 || entry.row < entry.col ||
            static_cast<std::size_t>(entry.row) >= columns)
            return false;
        const auto j = static_cast<std::size_t>(entry.col);
        if (entry.row == entry.col) {
            diagonal_[j] = entry.value;
            continue;
        }
        const auto first = rows_.begin() + static_cast<std::ptrdiff_t>(start_[j]);
        const auto last = rows_.begin() + static_cast<std::ptrdiff_t>(start_[j + 1]);
        const auto at = std::lower_bound(first, last, entry.row);
        if (at == last || *at != entry.row) return false;
        below_[static_cast<std::size_t>(at - rows_.begin())] = entry.value;
    }
    for (std::size_t j = 0; j < columns; ++j) {
        const Eigen::LLT<Block> llt(diagonal_[j]);
        if (llt.info() != Eigen::Success || !llt.matrixLLT().allFinite()) return false;
        diagonal_[j] = llt.matrixL();
        const auto L = diagonal_[j].triangularView<Eigen::Lower>();
        for (std::size_t e = start_[j]; e < start_[j + 1]; ++e)
            below_[e] = L.solve(below_[e].transpose()).transpose();  // (W_ij L_jj⁻ᵀ)
        for (std::size_t e = start_[j]; e < start_[j + 1]; ++e) {
            const int i = rows_[e];
            for (std::size_t f = start_[j]; f <= e; ++f) {
                const int k = rows_[f];  // (k ≤ i)
                Block& target = i == k ? diagonal_[static_cast<std::size_t>(k)]
                                       : below_[find(i, static_cast<std::size_t>(k))];
                target.noalias() -= below_[e] * below_[f].transpose();
            }
        }
    }
    return true;
}

void BlockCholesky6::solveInPlace(Eigen::VectorXd& b) const {
    assert(b.size() == 6 * static_cast<Eigen::Index>(diagonal_.size()));
    const std::size_t columns = diagonal_.size();
    const auto segment = [&](int block) {
        return b.segment<6>(6 * static_cast<Eigen::Index>(block));
    };
    for (std::size_t j = 0; j < columns; ++j) {  // L y = b
        auto y = segment(static_cast<int>(j));
        diagonal_[j].triangularView<Eigen::Lower>().solveInPlace(y);
        for (std::size_t e = start_[j]; e < start_[j + 1]; ++e)
            segment(rows_[e]).noalias() -= below_[e] * y;
    }
    for (std::size_t j = columns; j-- > 0;) {  // Lᵀ x = y
        auto x = segment(static_cast<int>(j));
        for (std::size_t e = start_[j]; e < start_[j + 1]; ++e)
            x.noalias() -= below_[e].transpose() * segment(rows_[e]);
        diagonal_[j].transpose().triangularView<Eigen::Upper>().solveInPlace(x);
    }
}

}  // namespace engine
