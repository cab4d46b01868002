#include "engine/analysis/mobility.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "engine/analysis/forward_dynamics.h"
#include "engine/constraints/constraints.h"
#include "engine/kinematics/kinematics.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"
#include "engine/solver/kkt_solver.h"
#include "engine/state/state.h"

namespace engine {
namespace {

// Two unit axes are parallel when |a × b| is below this (sine of the angle between them).
constexpr double kParallelTolerance = 1e-6;
// Above this many candidate joints, the joints implying a redundant row are not searched one
// by one (two rank analyses per joint); the explanation then names the joint and its equation.
constexpr int kMaxJointsSearched = 300;

constexpr const char* kAxisName[] = {"x", "y", "z"};

std::string quoted(const std::string& name) {
    return "'" + name + "'";
}

// "'a'", "'a' and 'b'", "'a', 'b' and 'c'".
std::string nameList(const std::vector<std::string>& names) {
    std::string text;
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (k > 0) text += k + 1 == names.size() ? " and " : ", ";
        text += quoted(names[k]);
    }
    return text;
}

// "joint 'a'" or "joints 'a' and 'b'".
std::string named(const std::string& noun, const std::vector<std::string>& names) {
    return noun + (names.size() == 1 ? " " : "s ") + nameList(names);
}

// The verb agreeing with a list of names: "stops" for one, "stop" for several.
std::string agreeing(const std::vector<std::string>& names, const std::string& one,
                     const std::string& many) {
    return names.size() == 1 ? one : many;
}

std::string plural(int count, const std::string& one, const std::string& many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

// A direction at the initial pose in world axes: "world y", or "world (0.707, 0, 0.707)" with
// the sign chosen so that its largest component is positive (an axis has no sense here).
std::string worldDirection(const Vec3& a_W) {
    Vec3 u = a_W.normalized();
    for (int k = 0; k < 3; ++k)
        if (std::abs(u(k)) > 1.0 - kParallelTolerance) return std::string("world ") + kAxisName[k];
    Eigen::Index largest = 0;
    u.cwiseAbs().maxCoeff(&largest);
    if (u(largest) < 0.0) u = -u;
    double c[3];
    for (int k = 0; k < 3; ++k) {
        c[k] = std::round(u(k) * 1000.0) / 1000.0;
        if (c[k] == 0.0) c[k] = 0.0;  // no "-0"
    }
    return "world (" + numberText(c[0]) + ", " + numberText(c[1]) + ", " + numberText(c[2]) + ")";
}

// The part a marker ("part.marker") sits on.
std::string partOf(const MarkerModel& marker) {
    return marker.name.substr(0, marker.name.find('.'));
}

// Everything the explanations need about the model at its initial pose: marker frames, Φq,
// the part–joint graph, and rank questions about sets of rows.
class Explainer {
public:
    explicit Explainer(const Model& model) : model_(model) {
        const State s0 = initialState(model);
        computeBodyFrames(model, s0.q, s0.v, frames_);
        evaluateConstraints(model, s0.t, frames_, evaluation_);

        // Part–joint graph: a node per moving part, plus one for the ground (all ground parts
        // are fixed together); an edge per joint.
        const int ground = model.bodyCount();
        const auto node = [&](int marker) {
            const int body = model.markers[static_cast<std::size_t>(marker)].body;
            return body == kGround ? ground : body;
        };
        adjacent_.assign(static_cast<std::size_t>(ground + 1), {});
        for (std::size_t j = 0; j < model.joints.size(); ++j) {
            const JointModel& joint = model.joints[j];
            ends_.push_back({node(joint.markerI), node(joint.markerJ)});
            adjacent_[static_cast<std::size_t>(ends_.back().first)].push_back(static_cast<int>(j));
            if (ends_.back().second != ends_.back().first)
                adjacent_[static_cast<std::size_t>(ends_.back().second)].push_back(
                    static_cast<int>(j));
        }
        for (const DriverModel& d : model.drivers) driven_.push_back(d.joint);
        for (const ForceModel& f : model.forces)
            if (f.joint >= 0) driven_.push_back(f.joint);
    }

    RedundantEquation explain(int row) {
        RedundantEquation out;
        out.row = row;
        if (row >= model_.couplerRowOffset && row < model_.jointRows)
            explainCouplerRow(row, out);
        else if (row < model_.jointRows)
            explainJointRow(row, out);
        else
            explainMotionRow(row, out);
        return out;
    }

private:
    // Coordinates minus the rank of the joints' rows alone: the freedom motions may drive.
    int jointFreedom() { return model_.velocitySize() - rank(jointRowsExcept(-1)); }

    // ---- Rank questions, answered by the KKT solver's own rank analysis (the tolerance of
    // the solve) on just the rows asked about and the parts they touch: each touched part gets
    // a compact block of 6 columns, so a loop's question costs as much as the loop.
    int rank(const std::vector<int>& rows) {
        const SparseRowMatrix& Phi_q = evaluation_.Phi_q;
        constexpr int k6 = layout::kVelocitiesPerBody;
        std::vector<int> blockOf(static_cast<std::size_t>(Phi_q.cols() / k6), -1);
        int blocks = 0;
        std::vector<Eigen::Triplet<double>> entries;
        for (std::size_t k = 0; k < rows.size(); ++k)
            for (SparseRowMatrix::InnerIterator it(Phi_q, rows[k]); it; ++it) {
                int& block = blockOf[static_cast<std::size_t>(it.col() / k6)];
                if (block < 0) block = blocks++;
                entries.emplace_back(static_cast<int>(k),
                                     static_cast<int>(layout::velocityIndex(block)) +
                                         static_cast<int>(it.col() % k6),
                                     it.value());
            }
        if (blocks == 0) return 0;  // rows between ground markers only: they restrain nothing
        SparseRowMatrix sub(static_cast<Eigen::Index>(rows.size()), layout::velocityIndex(blocks));
        sub.setFromTriplets(entries.begin(), entries.end());  // keeps Φq's whole 6-column blocks
        // The rank does not depend on M.
        solver_.analyze(sub, Eigen::VectorXd::Ones(layout::velocityIndex(blocks)));
        return solver_.rank();
    }
    // Whether row `r` is a combination of `rows` (the restraint it adds is already there).
    bool implied(const std::vector<int>& rows, int r) {
        std::vector<int> with = rows;
        with.push_back(r);
        return rank(with) == rank(rows);
    }

    std::vector<int> rowsOf(int joint) const {
        std::vector<int> rows;
        const int first = model_.jointRowOffset[static_cast<std::size_t>(joint)];
        for (int k = 0; k < model_.joints[static_cast<std::size_t>(joint)].rows; ++k)
            rows.push_back(first + k);
        return rows;
    }
    std::vector<int> rowsOf(const std::vector<int>& joints) const {
        std::vector<int> rows;
        for (int j : joints)
            for (int r : rowsOf(j)) rows.push_back(r);
        return rows;
    }
    std::vector<int> jointRowsExcept(int joint) const {
        std::vector<int> rows;
        for (int j = 0; j < static_cast<int>(model_.joints.size()); ++j)
            if (j != joint)
                for (int r : rowsOf(j)) rows.push_back(r);
        for (int r = model_.couplerRowOffset; r < model_.jointRows; ++r) rows.push_back(r);
        return rows;
    }
    // Rows of `joint` before `row` (the joint's own equations the solver kept ahead of it).
    std::vector<int> earlierRowsOf(int joint, int row) const {
        std::vector<int> rows;
        for (int r : rowsOf(joint))
            if (r < row) rows.push_back(r);
        return rows;
    }
    static std::vector<int> joined(std::vector<int> a, const std::vector<int>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    }

    // Smallest set (found greedily) among `candidates` whose rows, with `base`, imply `row`;
    // `rowsOfCandidate` gives each candidate's rows. Assumes all candidates together do.
    template <typename RowsOf>
    std::vector<int> implyingSet(std::vector<int> candidates, const std::vector<int>& base, int row,
                                 RowsOf rowsOfCandidate) {
        for (std::size_t k = 0; k < candidates.size();) {
            std::vector<int> rows = base;
            for (std::size_t l = 0; l < candidates.size(); ++l)
                if (l != k)
                    for (int r : rowsOfCandidate(candidates[l])) rows.push_back(r);
            if (implied(rows, row))
                candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(k));
            else
                ++k;
        }
        return candidates;
    }

    // ---- Geometry at the initial pose.
    const JointModel& joint(int j) const { return model_.joints[static_cast<std::size_t>(j)]; }
    const MarkerModel& marker(int m) const { return model_.markers[static_cast<std::size_t>(m)]; }
    Mat3 R_WM(int m) const { return markerFrame(model_, frames_, m).R; }
    Vec3 p_WMo(int m) const { return markerFrame(model_, frames_, m).p; }
    // The joint axis: marker J's z (revolute, prismatic, cylindrical).
    Vec3 jointAxis(int j) const { return R_WM(joint(j).markerJ).col(2); }
    bool grounded(int j) const {
        const int ground = model_.bodyCount();
        return ends_[static_cast<std::size_t>(j)].first == ground ||
               ends_[static_cast<std::size_t>(j)].second == ground;
    }
    bool isDriven(int j) const {
        return std::find(driven_.begin(), driven_.end(), j) != driven_.end();
    }
    std::vector<std::string> jointNames(const std::vector<int>& joints) const {
        std::vector<std::string> names;
        for (int j : joints) names.push_back(joint(j).name);
        return names;
    }

    // "the y axis of marker 'ground.D' (world y)" when a_W lies along one of the marker's
    // axes, else the world direction alone.
    std::string axisAbout(const Vec3& a_W, int m) const {
        const Mat3 R = R_WM(m);
        const Vec3 u = a_W.normalized();
        for (int k = 0; k < 3; ++k)
            if (u.cross(R.col(k)).norm() < kParallelTolerance)
                return std::string("the ") + kAxisName[k] + " axis of marker " +
                       quoted(marker(m).name) + " (" + worldDirection(a_W) + ")";
        return "the axis " + worldDirection(a_W);
    }

    // What a joint row holds and which relative motion of the two parts it stops, in words.
    struct RowSense {
        std::string holds;
        std::string stops;
    };
    RowSense senseOfJointRow(int j, int row) const {
        const JointModel& jt = joint(j);
        const MarkerModel& mi = marker(jt.markerI);
        const MarkerModel& mj = marker(jt.markerJ);
        const std::string I = quoted(mi.name), J = quoted(mj.name);
        const std::string partI = quoted(partOf(mi)), partJ = quoted(partOf(mj));
        int local = row - model_.jointRowOffset[static_cast<std::size_t>(j)];
        for (const Primitive& p : jt.primitives) {
            if (local >= p.rows()) {
                local -= p.rows();
                continue;
            }
            switch (p.type) {
            case PrimitiveType::Coincident:
                return {"it holds the origins of markers " + I + " and " + J +
                            " together along world " + kAxisName[local],
                        partI + " sliding along world " + std::string(kAxisName[local]) +
                            " relative to " + partJ};
            case PrimitiveType::Dot1: {
                // d/dt (a_I^k · a_J^l) = ω_rel · (a_I^k × a_J^l): it stops turns about that axis.
                const Vec3 a = R_WM(jt.markerI).col(p.axisI).cross(R_WM(jt.markerJ).col(p.axisJ));
                const std::string holds = std::string("it keeps the ") + kAxisName[p.axisI] +
                                          " axis of marker " + I + " perpendicular to the " +
                                          kAxisName[p.axisJ] + " axis of marker " + J;
                if (a.norm() < kParallelTolerance)
                    return {holds, partI + " turning relative to " + partJ +
                                       " (the two axes are parallel at the initial pose, so it "
                                       "stops nothing)"};
                return {holds, partI + " turning relative to " + partJ + " about " +
                                   axisAbout(a, jt.markerJ)};
            }
            case PrimitiveType::Dot2: {
                const Vec3 a = R_WM(jt.markerI).col(p.axisI);
                return {
                    "it keeps the origin of marker " + J + " in the plane through marker " + I +
                        " normal to its " + kAxisName[p.axisI] + " axis",
                    partI + " sliding relative to " + partJ + " along " + axisAbout(a, jt.markerI)};
            }
            case PrimitiveType::OnCurve:
                return {"it keeps the origin of marker " + I + " on the curve of marker " + J +
                            (local == 0 ? " (across the curve)" : " (out of the curve's plane)"),
                        partI + " leaving the curve of " + partJ};
            case PrimitiveType::OnSurface:
                return {"it keeps the origin of marker " + I + " on the surface of marker " + J,
                        partI + " leaving the surface of " + partJ};
            case PrimitiveType::CamContact:
                return {"it keeps the follower's contour on " + partI + " touching the cam's on " +
                            partJ,
                        partI + " moving off or into the cam of " + partJ};
            case PrimitiveType::Distance: {
                const Vec3 d = p_WMo(jt.markerJ) - p_WMo(jt.markerI);
                return {"it keeps the origins of markers " + I + " and " + J + " " +
                            numberText(p.length, 6, "m") + " apart",
                        "the two origins moving apart" +
                            (d.norm() > 0.0 ? " along " + worldDirection(d) : std::string())};
            }
            }
        }
        return {"it is equation " + std::to_string(row) + " of joint " + quoted(jt.name),
                "a relative motion"};
    }

    // ---- Joint rows.
    void explainJointRow(int row, RedundantEquation& out) {
        int j = 0;
        while (j + 1 < static_cast<int>(model_.joints.size()) &&
               row >= model_.jointRowOffset[static_cast<std::size_t>(j + 1)])
            ++j;
        const JointModel& jt = joint(j);
        out.joint = jt.name;
        out.equation = jt.rowLabels[static_cast<std::size_t>(
            row - model_.jointRowOffset[static_cast<std::size_t>(j)])];
        const RowSense sense = senseOfJointRow(j, row);
        const std::vector<int> own = earlierRowsOf(j, row);
        const auto [nodeI, nodeJ] = ends_[static_cast<std::size_t>(j)];
        const std::string I = quoted(marker(jt.markerI).name), J = quoted(marker(jt.markerJ).name);

        // The joint's own equations are dependent: its markers are set up wrongly.
        if (nodeI == nodeJ || implied(own, row)) {
            const std::string type(jointTypeName(jt.type));
            out.meaning = sense.holds +
                          "; at the initial pose it repeats the joint's own other equations, so "
                          "markers " +
                          I + " and " + J + " are not oriented as a " + type + " joint expects";
            out.remedy = "orient markers " + I + " and " + J + " as a " + type +
                         " joint expects (docs/engine.md lists each joint's equations; the joint "
                         "axis is marker J's z)";
            return;
        }

        // Two joints between the same two parts.
        std::vector<int> twins;
        for (int k = 0; k < static_cast<int>(model_.joints.size()); ++k) {
            const auto [a, b] = ends_[static_cast<std::size_t>(k)];
            if (k != j && ((a == nodeI && b == nodeJ) || (a == nodeJ && b == nodeI)))
                twins.push_back(k);
        }
        if (!twins.empty() && implied(joined(rowsOf(twins), own), row)) {
            explainTwins(j, twins, sense, out);
            return;
        }

        // A closed loop: the shortest cycle the joint closes in the part–joint graph.
        const std::vector<int> loop = shortestLoop(j);
        if (!loop.empty()) {
            std::vector<int> others;
            for (int k : loop)
                if (k != j) others.push_back(k);
            if (implied(joined(rowsOf(others), own), row)) {
                explainLoop(loop, others, row, sense, out);
                return;
            }
        }

        // Otherwise the joints whose equations imply it, found one by one among those whose
        // rows come before it (the solver keeps the earlier rows): a longer cycle through the
        // joint, or several cycles together.
        std::vector<int> implying;
        if (j <= kMaxJointsSearched) {
            std::vector<int> candidates;
            for (int k = 0; k < j; ++k) candidates.push_back(k);
            implying = implyingSet(candidates, own, row, [&](int k) { return rowsOf(k); });
        }
        if (const std::vector<int> cycle = asCycle(joined(implying, {j}), j); !cycle.empty()) {
            explainLoop(cycle, implying, row, sense, out);
            return;
        }
        const std::string by =
            implying.empty() ? "the other joints" : named("joint", jointNames(implying));
        out.meaning = sense.holds + ": it stops " + sense.stops + ", which " + by + " already " +
                      (implying.size() == 1 ? "stops" : "stop") +
                      " at the initial pose (through more than one closed loop)";
        out.remedy =
            "the pose or the geometry is special: lines of action that line up (parallel or "
            "meeting legs, a stretched or folded linkage) make the loops' equations repeat. Move "
            "the parts away from that position or change the geometry; if it is meant, give " +
            quoted(jt.name) + " a type without this equation, or loosen " + by +
            ", so that the restraint is imposed once";
    }

    void explainTwins(int j, const std::vector<int>& twins, const RowSense& sense,
                      RedundantEquation& out) {
        const JointModel& jt = joint(j);
        const std::string partI = quoted(partOf(marker(jt.markerI))),
                          partJ = quoted(partOf(marker(jt.markerJ)));
        const std::string twinNames = nameList(jointNames(twins));
        out.meaning = sense.holds + ": it stops " + sense.stops + ", which " +
                      named("joint", jointNames(twins)) + " between the same two parts already " +
                      agreeing(jointNames(twins), "stops", "stop");

        std::vector<int> pair = twins;
        pair.push_back(j);
        std::sort(pair.begin(), pair.end());
        const std::vector<int> pairRows = rowsOf(pair);
        const int independent = rank(pairRows);
        const int excess = static_cast<int>(pairRows.size()) - independent;
        const std::string counts =
            nameList(jointNames(pair)) + (pair.size() == 2 ? " both join " : " all join ") + partI +
            " and " + partJ + ": " +
            plural(static_cast<int>(pairRows.size()), "equation", "equations") + ", " +
            std::to_string(independent) + " of them independent";

        // Two revolutes on one axis: the two bearings of a hinge.
        if (twins.size() == 1 && jt.type == JointType::Revolute &&
            joint(twins[0]).type == JointType::Revolute) {
            const Vec3 axis = jointAxis(j);
            const Vec3 offset = p_WMo(jt.markerJ) - p_WMo(joint(twins[0]).markerJ);
            if (axis.cross(jointAxis(twins[0])).norm() < kParallelTolerance &&
                axis.cross(offset).norm() < kParallelTolerance * std::max(1.0, offset.norm())) {
                out.remedy = quoted(joint(twins[0]).name) + " and " + quoted(jt.name) +
                             " are two bearings of one hinge between " + partI + " and " + partJ +
                             " (" + plural(excess, "equation", "equations") +
                             " too many): delete " + quoted(jt.name) +
                             ", or make one of them a spherical joint and the other a pointOnLine "
                             "joint along the hinge axis (3 + 2 = 5 equations, none redundant)";
                return;
            }
        }
        // One restraint is enough: delete this joint if the others impose it all, else the
        // others if one of them (or this joint) does.
        if (rank(rowsOf(twins)) == independent) {
            out.remedy = counts + ": delete " + quoted(jt.name) + " (" + twinNames + " already " +
                         agreeing(jointNames(twins), "imposes", "impose") + " all of it)";
            return;
        }
        for (int keep : pair) {
            if (rank(rowsOf(keep)) != independent) continue;
            std::vector<int> rest;
            for (int k : pair)
                if (k != keep) rest.push_back(k);
            out.remedy = counts + ": delete " + nameList(jointNames(rest)) + " (" +
                         quoted(joint(keep).name) + " already imposes all of it)";
            return;
        }
        out.remedy = counts + ": replace them by joints that impose only the " +
                     std::to_string(independent) + " independent ones (" +
                     plural(excess, "equation", "equations") + " fewer)";
    }

    void explainLoop(const std::vector<int>& loop, const std::vector<int>& others, int row,
                     const RowSense& sense, RedundantEquation& out) {
        const std::string loopNames = nameList(jointNames(loop));
        const bool byOthers = implied(rowsOf(others), row);
        out.meaning =
            sense.holds + ": it stops " + sense.stops + ", which " +
            (byOthers ? "the other joints of its closed loop (" + nameList(jointNames(others)) + ")"
                      : "the rest of its closed loop (" + nameList(jointNames(others)) +
                            ") together with the joint's other equations") +
            " already stop";

        const std::vector<int> loopRows = rowsOf(loop);
        const int excess = static_cast<int>(loopRows.size()) - rank(loopRows);

        // A planar loop: revolute axes all parallel to n, prismatic slides across n. Built from
        // spatial joints, each one holds the loop in its plane, so the loop's three out-of-plane
        // closure equations (a slide along n, turns about two axes across n) repeat each other.
        Vec3 n = Vec3::Zero();
        bool planar = true;
        std::vector<int> revolutes;
        for (int k : loop) {
            if (joint(k).type == JointType::Revolute) {
                revolutes.push_back(k);
                if (n.isZero()) n = jointAxis(k);
                planar = planar && jointAxis(k).cross(n).norm() < kParallelTolerance;
            } else if (joint(k).type != JointType::Prismatic) {
                planar = false;
            }
        }
        for (int k : loop)
            if (joint(k).type == JointType::Prismatic && !n.isZero())
                planar = planar && std::abs(jointAxis(k).dot(n)) < kParallelTolerance;
        planar = planar && !n.isZero() && excess == 3 && revolutes.size() >= 2;

        if (planar) {
            const bool withPrismatics = revolutes.size() < loop.size();
            out.meaning += " (the loop's revolute axes are all parallel to " + worldDirection(n) +
                           ": it moves in a plane, and its out-of-plane equations repeat)";
            const auto [sphericalJoint, universalJoint] = planarRemedyJoints(revolutes);
            const std::string S = quoted(joint(sphericalJoint).name),
                              U = quoted(joint(universalJoint).name);
            out.remedy = std::string("a planar loop built from revolutes") +
                         (withPrismatics ? " and prismatic joints" : "") + " (" + loopNames +
                         "): every joint holds it in its plane, so 3 of its equations repeat. "
                         "Make " +
                         S + " a spherical joint (2 equations fewer) and " + U +
                         " a universal joint with one cross pin along its present axis and the "
                         "other in the plane of motion, not pointing at the centre of " +
                         S + " (1 fewer), or make " + U +
                         " a cylindrical joint on its present axis instead (1 fewer). That "
                         "removes exactly these 3 redundant equations and keeps the mechanism's "
                         "motion";
            return;
        }
        // A single loop closes with 6 equations on the freedoms its k joints allow, Σ(6 − rows):
        // with the joints in general position it repeats only what they fall short of 6 by,
        // rows − 6(k − 1). Repeating more means the geometry is special at this pose.
        const int generalExcess = std::max(
            0, static_cast<int>(loopRows.size()) - 6 * (static_cast<int>(loop.size()) - 1));
        const std::string loosen =
            "loosen its joints by exactly " + plural(excess, "equation", "equations") +
            " (a revolute made spherical frees 2 turns, made universal or cylindrical 1 "
            "turn or slide), choosing freedoms the rest of the loop still blocks so that "
            "the mechanism gains no motion";
        if (excess > generalExcess)
            out.remedy =
                "the closed loop " + loopNames + " repeats " +
                plural(excess, "equation", "equations") +
                " at the initial pose, which joints of these types in general position would "
                "not (" +
                (generalExcess == 0 ? std::string("none") : std::to_string(generalExcess)) +
                "): its geometry is special there, with axes or lines of action lined up, or the "
                "linkage stretched or folded at a dead centre. Move the parts away from that "
                "position or change the geometry; if it is meant, " +
                loosen;
        else
            out.remedy = "the closed loop " + loopNames + " has " +
                         plural(excess, "equation", "equations") +
                         " more than its joints can impose independently: " + loosen;
    }

    // `joints` in order round a simple cycle of the part–joint graph, ending with `last`;
    // empty when they do not form one.
    std::vector<int> asCycle(const std::vector<int>& joints, int last) const {
        if (joints.size() < 2) return {};
        std::vector<int> degree(adjacent_.size(), 0);
        for (int k : joints) {
            const auto [a, b] = ends_[static_cast<std::size_t>(k)];
            if (a == b) return {};
            ++degree[static_cast<std::size_t>(a)];
            ++degree[static_cast<std::size_t>(b)];
        }
        for (int d : degree)
            if (d != 0 && d != 2) return {};
        // Walk round from the far end of `last`; a simple cycle comes back having used them all.
        std::vector<int> order, left = joints;
        left.erase(std::find(left.begin(), left.end(), last));
        int node = ends_[static_cast<std::size_t>(last)].second;
        while (!left.empty()) {
            const auto next = std::find_if(left.begin(), left.end(), [&](int k) {
                return ends_[static_cast<std::size_t>(k)].first == node ||
                       ends_[static_cast<std::size_t>(k)].second == node;
            });
            if (next == left.end()) return {};
            const auto [a, b] = ends_[static_cast<std::size_t>(*next)];
            node = a == node ? b : a;
            order.push_back(*next);
            left.erase(next);
        }
        if (node != ends_[static_cast<std::size_t>(last)].first) return {};
        order.push_back(last);
        return order;
    }

    // The two revolutes of a planar loop to loosen: ones no motion, spring or controller uses
    // (they need the joint's angle), preferably between two moving parts (ground pivots often
    // carry the motors), the second next to the first.
    std::pair<int, int> planarRemedyJoints(const std::vector<int>& revolutes) const {
        std::vector<int> order;
        for (int pass = 0; pass < 4; ++pass)
            for (int k : revolutes) {
                const bool free = !isDriven(k), floating = !grounded(k);
                const bool wanted = pass == 0   ? free && floating
                                    : pass == 1 ? free
                                    : pass == 2 ? floating
                                                : true;
                if (wanted && std::find(order.begin(), order.end(), k) == order.end())
                    order.push_back(k);
            }
        const int first = order[0];
        const auto shares = [&](int a, int b) {
            const auto [a1, a2] = ends_[static_cast<std::size_t>(a)];
            const auto [b1, b2] = ends_[static_cast<std::size_t>(b)];
            return a1 == b1 || a1 == b2 || a2 == b1 || a2 == b2;
        };
        // The second: next to the first and unused, else unused, else next to it, else any.
        for (int pass = 0; pass < 3; ++pass)
            for (std::size_t k = 1; k < order.size(); ++k) {
                const bool free = !isDriven(order[k]), next = shares(first, order[k]);
                if (pass == 0 ? free && next : pass == 1 ? free : next) return {first, order[k]};
            }
        return {first, order[1]};
    }

    // Joints of the shortest cycle through joint j (breadth-first from its J part to its I part
    // without j itself), in the order met going round, j last; empty if j closes no cycle.
    std::vector<int> shortestLoop(int j) const {
        const auto [from, to] = std::pair(ends_[static_cast<std::size_t>(j)].second,
                                          ends_[static_cast<std::size_t>(j)].first);
        std::vector<int> via(adjacent_.size(), -2);  // the joint a node was reached by; -2: not yet
        via[static_cast<std::size_t>(from)] = -1;
        std::deque<int> queue{from};
        while (!queue.empty() && via[static_cast<std::size_t>(to)] == -2) {
            const int node = queue.front();
            queue.pop_front();
            for (int k : adjacent_[static_cast<std::size_t>(node)]) {
                if (k == j) continue;
                const auto [a, b] = ends_[static_cast<std::size_t>(k)];
                const int next = a == node ? b : a;
                if (via[static_cast<std::size_t>(next)] != -2) continue;
                via[static_cast<std::size_t>(next)] = k;
                queue.push_back(next);
            }
        }
        if (via[static_cast<std::size_t>(to)] == -2) return {};
        std::vector<int> loop;
        for (int node = to; via[static_cast<std::size_t>(node)] >= 0;) {
            const int k = via[static_cast<std::size_t>(node)];
            loop.push_back(k);
            const auto [a, b] = ends_[static_cast<std::size_t>(k)];
            node = a == node ? b : a;
        }
        std::reverse(loop.begin(), loop.end());
        loop.push_back(j);
        return loop;
    }

    // ---- Coupler rows: the joints (and earlier couplers) already relate its coordinates.
    void explainCouplerRow(int row, RedundantEquation& out) {
        const CouplerModel& c =
            model_.couplers[static_cast<std::size_t>(row - model_.couplerRowOffset)];
        out.joint = c.name;
        out.equation = std::string(couplerTypeName(c.type)) + ": Σ cᵢ qᵢ = offset";
        std::string coordinates;
        for (const CouplerTermModel& t : c.terms) {
            const JointModel& jt = joint(t.joint);
            const bool angle =
                jt.coordinates[static_cast<std::size_t>(t.coordinate)] == JointAxis::Rotation;
            coordinates += (coordinates.empty() ? "" : ", ") + std::string("the ") +
                           (angle ? "angle" : "slide") + " of joint " + quoted(jt.name);
        }
        out.meaning = "coupler " + quoted(c.name) + " relates " + coordinates +
                      ", but the joints and the couplers before it already fix that relation "
                      "(a coordinate locked, or the same coordinates coupled twice)";
        out.remedy =
            "delete coupler " + quoted(c.name) + ", or free the joint coordinates it couples";
    }

    // ---- Motion rows.
    void explainMotionRow(int row, RedundantEquation& out) {
        const int d = row - model_.jointRows;
        const DriverModel& driver = model_.drivers[static_cast<std::size_t>(d)];
        const JointModel& jt = joint(driver.joint);
        out.motion = driver.name;
        const bool angle =
            jt.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        const std::string coordinate = angle ? "angle" : "slide";
        const char* level[] = {"", "d/dt ", "d²/dt² "};
        out.equation = level[static_cast<int>(driver.level)] + coordinate + " = f(time)";
        const char* what[3][2] = {{"the slide", "the angle"},
                                  {"the sliding speed", "the turning speed"},
                                  {"the sliding acceleration", "the angular acceleration"}};
        const std::string holds =
            "it prescribes " + std::string(what[static_cast<int>(driver.level)][angle ? 1 : 0]) +
            " of joint " + quoted(jt.name) + " (" +
            (angle ? "the turn of marker " + quoted(marker(jt.markerI).name) +
                         " about the z axis of marker "
                   : "the slide of marker " + quoted(marker(jt.markerI).name) +
                         " along the z axis of marker ") +
            quoted(marker(jt.markerJ).name) + ") as " + quoted(driver.f.text());

        // The joints alone already fix the coordinate.
        const std::vector<int> allJointRows = jointRowsExcept(-1);
        if (implied(allJointRows, row)) {
            std::vector<int> locking;
            if (static_cast<int>(model_.joints.size()) <= kMaxJointsSearched) {
                std::vector<int> candidates;
                for (int k = 0; k < static_cast<int>(model_.joints.size()); ++k)
                    candidates.push_back(k);
                locking = implyingSet(candidates, {}, row, [&](int k) { return rowsOf(k); });
            }
            const std::string by =
                locking.empty() ? "the joints" : named("joint", jointNames(locking));
            out.meaning = holds + ", but " + by + " already " +
                          (locking.size() == 1 ? "holds" : "hold") + " that " + coordinate +
                          " fixed: there is no freedom left for the motion to drive";
            out.remedy = "delete motion " + quoted(driver.name) + ", or, if " + quoted(jt.name) +
                         " should " + (angle ? "turn" : "slide") + ", loosen " + by +
                         " so that its " + coordinate + " is free";
            return;
        }

        // The joints leave it free, but the earlier motions already take up the freedom.
        std::vector<int> earlier;
        for (int e = 0; e < d; ++e) earlier.push_back(e);
        const std::vector<int> others = implyingSet(earlier, allJointRows, row, [&](int e) {
            return std::vector<int>{model_.jointRows + e};
        });
        std::vector<std::string> names;
        for (int e : others) names.push_back(model_.drivers[static_cast<std::size_t>(e)].name);
        const int freedom = jointFreedom();
        const std::string motions = names.empty() ? "the other motions" : named("motion", names);
        out.meaning = holds + "; the joints leave the mechanism " +
                      plural(freedom, "degree of freedom", "degrees of freedom") + " and " +
                      motions + " already " + agreeing(names, "drives ", "drive ") +
                      (freedom == 1 ? "it" : "them") + " (this " + coordinate + " follows from " +
                      agreeing(names, "it", "them") + ")";
        out.remedy = "delete motion " + quoted(driver.name) + " or " +
                     (names.size() == 1 ? "" : "one of ") + motions + ": a mechanism with " +
                     plural(freedom, "degree of freedom", "degrees of freedom") + " takes " +
                     plural(freedom, "motion", "motions") + " on independent coordinates";
    }

    const Model& model_;
    std::vector<BodyFrame> frames_;
    ConstraintEvaluation evaluation_;
    KktSolver solver_;
    std::vector<std::pair<int, int>> ends_;   // per joint: graph nodes of its I and J parts
    std::vector<std::vector<int>> adjacent_;  // per node: the joints touching it
    std::vector<int> driven_;                 // joints whose coordinates a motion or force uses
};

std::string signedCount(int n) {
    return n < 0 ? "\u2212" + std::to_string(-n) : std::to_string(n);
}

}  // namespace

std::string MobilityReport::summary() const {
    if (!analysed) return "mobility unknown: " + message;
    std::string text = std::to_string(actualDof) + " DOF (Gr\u00fcbler " +
                       signedCount(grueblerDof) + ", " +
                       (redundantCount == 0
                            ? std::string("no redundant equations")
                            : plural(redundantCount, "redundant equation", "redundant equations")) +
                       ")";
    if (!ok) text += ": " + message;
    return text;
}

MobilityReport mobility(const std::shared_ptr<const Model>& model) {
    MobilityReport report;
    if (!model) {
        report.ok = false;
        report.message = "no model (the scene has errors)";
        return report;
    }

    // The counts, from the solver's rank analysis at the initial pose (initialize analyses Φq
    // before it assembles, so the counts are there even when assembly fails).
    ForwardDynamics sim(model);
    const Status status = sim.initialize();
    report.ok = status.ok;
    report.message = status.message;
    report.cause = status.cause;
    report.entities = status.entities;
    report.analysed = true;
    report.coordinates = model->velocitySize();
    report.equations = model->constraintRows();
    report.grueblerDof = report.coordinates - report.equations;
    report.actualDof = report.coordinates - sim.solver().rank();
    report.redundantCount = static_cast<int>(sim.solver().redundantRows().size());

    // Each redundant row, in words.
    if (report.redundantCount > 0) {
        Explainer explainer(*model);
        for (int row : sim.solver().redundantRows())
            report.redundant.push_back(explainer.explain(row));
    }
    return report;
}

}  // namespace engine
