#pragma once
// The contact problem of one velocity-level step and its two solvers (seed 003 §0.3, §0.7,
// §0.10, §0.15, §0.16; docs/contact.md).
//
// Contact c has three rows over the velocity vector v: its normal n (from part A to part B)
// and two tangents t1, t2 (rows J_n, J_t1, J_t2: relative velocity of B's point with respect
// to A's along the direction), and impulses x = (z, β1, β2) acting on B (A gets the
// opposite). The unit response of row r is u_r: the change of v per unit impulse, M⁻¹J_rᵀ
// for free bodies, or that projected onto the joint constraints (bilateral rows solved
// exactly) when the bodies are jointed. Given the free velocity v_f (joints met, no contact):
//
//     v⁺ = v_f + Σ_r u_r x_r
//     0 ≤ z ⟂ J_n v⁺ + σ z − target ≥ 0                      normal (σ: soft-contact compliance)
//     box:  |β_k| ≤ μ z (+ bound), β_k opposes J_tk v⁺ when it slides  (seed 003 eq. 0.5, 0.6)
//     cone: (β1, β2) in the regular polygon of K vertices μ z d_j, maximal dissipation
//
// Projected Gauss–Seidel solves it iteratively with warm starting (the default); Lemke's
// pivoting method solves the equivalent LCP exactly (Stewart–Trinkle form with one slack per
// friction group), for small problems and to check PGS.

#include <functional>
#include <vector>

#include <Eigen/Core>

#include "engine/math/spatial.h"
#include "engine/model/layout.h"
#include "engine/model/scene_spec.h"

namespace engine::contact {

using Vec6 = Eigen::Matrix<double, 6, 1>;

struct ContactRows {
    int bodyA = -1, bodyB = -1;  // body indices, −1 for the ground
    Vec6 J[3][2];  // row (normal, t1, t2) × side (A, B): entries on that body's 6 velocities
    Vec6 Minv[2];  // per side: the body's inverse mass (diagonal, body axes); 0 for none
    // M⁻¹Jᵀ on row r's entries of a side (the free-body response), formed where it is used:
    // kept, it was 288 of the 648 bytes a contact's rows take through every sweep.
    Vec6 MinvJ(int r, int side) const { return Minv[side].cwiseProduct(J[r][side]); }
    double friction = 0.0;  // μ
    // A friction impulse allowed besides μ z [N·s]: joint friction, whose bound comes from the
    // joint's reaction rather than a normal row of its own (its normal row is then empty).
    double bound = 0.0;
    bool boxFriction = false;  // bounded per tangent whatever the problem's friction model
    double target = 0.0;       // the normal row's bound (restitution, stabilisation, gap)
    // The part of `target` that pushes a penetration out (stabilisation, ≥ 0): it moves the
    // positions only. The solvers meet the whole target for the velocities the positions
    // advance with, then `target − bias` for v⁺ (split stabilisation: a corner pushed out of
    // the floor does not leave the part moving, so a stack is not rocked by its own corrections).
    double bias = 0.0;
    double compliance = 0.0;              // σ [m/(N·s)·s]: soft contact, 0 for rigid
    double impulse[3] = {0.0, 0.0, 0.0};  // warm start in, solution out [N·s]
};

// The rows' responses when joints couple the bodies: column j (contact j / 3's row j % 3) is u_j,
// kept as the twists of the bodies it moves (a free part's row: its own parts; a mechanism's:
// every body of it), bodies in increasing order. A pile of 400 cubes beside one jointed
// mechanism kept as dense columns took 2,400 × 4,800 numbers, zeroed every step.
struct RowResponses {
    std::vector<std::size_t> start;  // column j's entries: [start[j], start[j + 1])
    std::vector<int> body;
    std::vector<Vec6> twist;

    std::size_t columns() const { return start.empty() ? 0 : start.size() - 1; }
    bool empty() const { return columns() == 0; }
    void clear() {
        start.clear();
        body.clear();
        twist.clear();
    }
    // Columns are appended in order: begin one, add its bodies (increasing), and so on.
    void beginColumn() {
        if (start.empty()) start.push_back(0);
        start.push_back(start.back());
    }
    void add(int b, const Vec6& t) {
        body.push_back(b);
        twist.push_back(t);
        ++start.back();
    }
    // Column j's twist on body b (zero where it does not move b).
    Vec6 at(std::size_t j, int b) const;
    // Every column of the dense responses U (6 per body × columns), their nonzero twists only.
    void assign(const Eigen::MatrixXd& U);
    // v += U x.
    void multiplyAdd(const Eigen::VectorXd& x, Eigen::VectorXd& v) const;
};

struct ContactProblem {
    std::vector<ContactRows> contacts;
    // Responses u_r (3 per contact) when joints couple the bodies; empty: the free-body
    // responses MinvJ apply.
    RowResponses U;
    FrictionModel friction = FrictionModel::Box;
    int coneFacets = 8;
    // The islands, when the caller knows them (else empty: solvePgs finds them): contacts
    // [islandStart[k], islandStart[k + 1]) are the k-th island — all the contacts joined to its
    // first through the parts they touch (the ground joins nothing), none of another — every
    // island nonempty, every contact on at least one moving part, no responses U. solvePgs then
    // describes each island in the task that solves it, instead of reading every contact's two
    // bodies and joining them on one thread first (at 24,000 contacts a step: a cache line
    // each, 6 % of the step). The same islands as solvePgs finds, in the same order.
    std::vector<std::size_t> islandStart;
    // Rows written late (with islands given): when set, the rows of contacts [first, last), an
    // island's, are written by this in the task that solves the island, just before it is
    // swept — each island's rows built and swept in one core's cache, not all written by the
    // threads in one pass and read back by whichever thread solves them (at 24,000 contacts,
    // 11 MB). `contacts` holds their places until then. The solvers call it (for every row
    // first where they take them all at once, or islands are not given) and clear it.
    std::function<void(std::size_t first, std::size_t last)> writeRows;
    // In joint coordinates, optional: the rows over the tree's rates, jᵀ (a column per row, 3
    // per contact), and their responses in the rates, Z = M⁻¹ jᵀ (the loops' share taken out),
    // so that W = (jᵀ)ᵀ Z: of rank at most the rates however many rows. A Newton step on an
    // island of more rows than rates solves its system through them (solvePgs). Read only;
    // the caller keeps them alive through the solve.
    const Eigen::MatrixXd* rowsInRates = nullptr;
    const Eigen::MatrixXd* rateResponses = nullptr;
};

struct ContactSolveReport {
    int iterations = 0;     // PGS sweeps or Lemke pivots (both solves where rows are biased)
    double residual = 0.0;  // PGS: largest velocity change of the last sweep [m/s]
    int coarseSteps = 0;    // PGS: coarse corrections kept
    int newtonSteps = 0;    // PGS: Newton steps on small mechanisms' islands kept
    bool converged = true;
};

// J_r · v for row r of contact c (inline: the solvers' innermost operation).
inline double rowVelocity(const ContactRows& c, int r, const Eigen::VectorXd& v) {
    double w = 0.0;
    if (c.bodyA >= 0) w += c.J[r][0].dot(layout::twist(v, c.bodyA));
    if (c.bodyB >= 0) w += c.J[r][1].dot(layout::twist(v, c.bodyB));
    return w;
}

// Projected Gauss–Seidel. `v` is the free velocity on entry, v⁺ on return; the impulses
// start from the contacts' warm start (clamped to their limits). With `positionVelocity`, an
// island with biased rows is solved twice: for the whole targets (the velocities the positions
// advance with, returned in `positionVelocity`; v⁺ there for the other islands) and for the
// targets less their biases (v⁺ and the impulses returned), each warm from the other
// (contact_solver.cpp says in which order); without it, the biases are ignored. With `coarse`, every
// kCoarseEvery sweeps that have not converged, a coarse correction over the contact graph:
// each pair of parts in contact moves its impulses by a wrench, all wrenches solved together
// (a two-level method; contact_solver.cpp), clamped, and kept when it lowers the impulses'
// energy; and on a small mechanism's island (box friction), every 2 kCoarseEvery sweeps instead,
// a Newton step on the whole island (contact_solver.cpp). Plain PGS (coarse = false) stays as
// the reference it was.
inline constexpr int kCoarseEvery = 8;
// The contacts from which a problem's islands are solved on several threads (workerThreads(),
// engine/solver/worker_pool.h); on fewer, waking a worker costs more than it saves.
inline constexpr std::size_t kParallelContacts = 512;
ContactSolveReport solvePgs(ContactProblem& problem, Eigen::VectorXd& v, int maxIterations,
                            double tolerance, bool coarse = true,
                            Eigen::VectorXd* positionVelocity = nullptr);

// Lemke's method on the dense LCP; fails (converged = false, impulses zero) on ray
// termination or when it needs more pivots than its limit. Biased rows and
// `positionVelocity` as solvePgs, both solved exactly: for the whole targets, then for the
// targets less their biases.
ContactSolveReport solveLemke(ContactProblem& problem, Eigen::VectorXd& v,
                              Eigen::VectorXd* positionVelocity = nullptr);

// Lemke's complementary pivoting for w = M x + q, w ≥ 0, x ≥ 0, wᵀx = 0. Returns false when
// it terminates on a ray (no solution found) or exceeds maxPivots.
bool lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd& x, int maxPivots,
           int* pivots = nullptr);

// The closest point to p in the regular polygon with `facets` vertices at radius R, the first
// on the x axis.
Eigen::Vector2d projectOntoPolygon(const Eigen::Vector2d& p, double R, int facets);

}  // namespace engine::contact
