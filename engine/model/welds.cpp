#include "engine/model/welds.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>

#include "engine/math/number_text.h"
#include "engine/model/state_functions.h"

namespace engine {

bool WeldGroups::any() const {
    return std::find(folded.begin(), folded.end(), true) != folded.end();
}

namespace {

// Union–find over the parts and the ground (the last index, always its set's name); any other
// set is named by its first part.
struct Sets {
    std::vector<int> parent;
    explicit Sets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    int find(int a) {
        while (parent[static_cast<std::size_t>(a)] != a) {
            parent[static_cast<std::size_t>(a)] =
                parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(a)])];
            a = parent[static_cast<std::size_t>(a)];
        }
        return a;
    }
    void join(int a, int b) {
        a = find(a), b = find(b);
        const int ground = static_cast<int>(parent.size()) - 1;
        if (a == b) return;
        if (a == ground || b == ground)
            parent[static_cast<std::size_t>(a == ground ? b : a)] = ground;
        else
            parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
};

// How far apart a weld's two markers are at the parts' poses: distance [m] and angle [rad].
void markerGap(const SceneSpec& spec, const Joint& joint, double& distance, double& angle) {
    const Part* pi = spec.findPart(joint.markerI.part);
    const Part* pj = spec.findPart(joint.markerJ.part);
    const Marker* mi = spec.findMarker(joint.markerI);
    const Marker* mj = spec.findMarker(joint.markerJ);
    const Transform X_WI = pi->X_WP * mi->X_PM, X_WJ = pj->X_WP * mj->X_PM;
    distance = (X_WI.p - X_WJ.p).norm();
    angle = X_WI.R.angularDistance(X_WJ.R);
}

// The joints whose reactions the scene's expressions read (FX … TM), each with the first reader
// ("force lift", "sensor overload").
std::map<std::string, std::string, std::less<>> reactionsRead(const SceneSpec& spec) {
    std::map<std::string, std::string, std::less<>> read;
    std::vector<std::string> variableNames;
    for (const VariableSpec& v : spec.variables) variableNames.push_back(v.name);
    const auto scan = [&](const std::string& text, const std::string& reader) {
        std::string error;
        const std::optional<StateText> split = splitStateText(text, variableNames, error);
        if (!split) return;  // validate() reports it
        for (const MeasureCall& call : split->calls)
            if (measureIsLagged(call.kind) && measureReadsJoint(call.kind) &&
                !call.arguments.empty())
                read.emplace(call.arguments[0], reader);
    };
    for (const ForceSpec& f : spec.forces)
        for (const std::string& c : f.components) scan(c, "force '" + f.name + "'");
    for (const VariableSpec& v : spec.variables) scan(v.expression, "variable '" + v.name + "'");
    for (const SensorSpec& s : spec.sensors) {
        scan(s.expression, "sensor '" + s.name + "'");
        scan(s.to, "sensor '" + s.name + "'");
    }
    return read;
}

}  // namespace

WeldGroups weldGroups(const SceneSpec& spec) {
    WeldGroups out;
    const std::size_t np = spec.parts.size(), nj = spec.joints.size();
    out.root.assign(np, 0);
    out.folded.assign(nj, false);
    out.carried.assign(nj, {});
    std::iota(out.root.begin(), out.root.end(), 0);
    std::map<std::string, int, std::less<>> index;
    for (std::size_t p = 0; p < np; ++p) index[spec.parts[p].name] = static_cast<int>(p);
    auto partOf = [&](const MarkerRef& ref) {
        const auto it = index.find(ref.part);
        return it == index.end() ? -1 : it->second;
    };
    // The ground's parts are one set from the start (index np: a part of its own).
    auto setOf = [&](int p) {
        return spec.parts[static_cast<std::size_t>(p)].ground ? static_cast<int>(np) : p;
    };

    // The welds that may fold.
    std::vector<bool> candidate(nj, false);
    const auto read = spec.settings.foldWelds ? reactionsRead(spec)
                                              : std::map<std::string, std::string, std::less<>>{};
    if (spec.settings.foldWelds)
        for (std::size_t j = 0; j < nj; ++j) {
            const Joint& joint = spec.joints[j];
            if (joint.type != JointType::Fixed || joint.compliance.soft()) continue;
            const int a = partOf(joint.markerI), b = partOf(joint.markerJ);
            if (a < 0 || b < 0 || a == b) continue;
            if (spec.parts[static_cast<std::size_t>(a)].frameMotion ||
                spec.parts[static_cast<std::size_t>(b)].frameMotion)
                continue;
            // A reaction an expression reads is found by the solve, as of the previous step:
            // such a weld keeps its rows.
            if (const auto it = read.find(joint.name); it != read.end()) {
                out.notes.push_back("weld '" + joint.name +
                                    "' is held as a joint, not folded into one body: " +
                                    it->second + " reads its reaction");
                continue;
            }
            double distance = 0.0, angle = 0.0;
            markerGap(spec, joint, distance, angle);
            if (distance > 1e-9 || angle > 1e-9) {
                out.notes.push_back(
                    "weld '" + joint.name +
                    "' is held as a joint, not folded into one body: "
                    "its markers are " +
                    numberText(distance) + " m and " +
                    numberText(angle * 180.0 / 3.141592653589793) +
                    "° apart at the parts' poses (the run's assembly brings them together)");
                continue;
            }
            candidate[j] = true;
        }

    // A rigid weld apart at its markers whose parts the exact welds already hold together: a
    // loop of welds that cannot close (whatever the solver, the parts are one rigid body).
    {
        Sets sets(np + 1);
        for (std::size_t j = 0; j < nj; ++j)
            if (candidate[j])
                sets.join(setOf(partOf(spec.joints[j].markerI)),
                          setOf(partOf(spec.joints[j].markerJ)));
        for (std::size_t j = 0; j < nj; ++j) {
            const Joint& joint = spec.joints[j];
            if (candidate[j] || joint.type != JointType::Fixed || joint.compliance.soft()) continue;
            const int a = partOf(joint.markerI), b = partOf(joint.markerJ);
            if (a < 0 || b < 0 || a == b) continue;
            const Part &pa = spec.parts[static_cast<std::size_t>(a)],
                       &pb = spec.parts[static_cast<std::size_t>(b)];
            if ((pa.ground && pb.ground) || pa.frameMotion || pb.frameMotion) continue;
            if (sets.find(setOf(a)) != sets.find(setOf(b))) continue;
            double distance = 0.0, angle = 0.0;
            markerGap(spec, joint, distance, angle);
            out.errors.push_back(
                {Severity::Error, "/joints/" + std::to_string(j),
                 "weld '" + joint.name + "' closes a loop of welds that hold '" + pa.name +
                     "' and '" + pb.name + "' together as one rigid body, but its markers are " +
                     numberText(distance) + " m and " +
                     numberText(angle * 180.0 / 3.141592653589793) +
                     "° apart: no motion can close it. Place its markers where they meet, make "
                     "it soft, or remove it (the other welds already hold the parts)"});
        }
    }

    // Groups; a group holding both ends of a joint that is not folded is not folded at all.
    std::vector<bool> split(np + 1, false);
    for (;;) {
        Sets sets(np + 1);
        for (std::size_t j = 0; j < nj; ++j)
            if (candidate[j])
                sets.join(setOf(partOf(spec.joints[j].markerI)),
                          setOf(partOf(spec.joints[j].markerJ)));
        bool changed = false;
        for (std::size_t j = 0; j < nj; ++j) {
            if (candidate[j]) continue;
            const int a = partOf(spec.joints[j].markerI), b = partOf(spec.joints[j].markerJ);
            if (a < 0 || b < 0) continue;
            const int sa = sets.find(setOf(a)), sb = sets.find(setOf(b));
            // (two ground parts joined: nothing new; any other pair in one group: unfold it)
            if (sa != sb || (spec.parts[static_cast<std::size_t>(a)].ground &&
                             spec.parts[static_cast<std::size_t>(b)].ground))
                continue;
            for (std::size_t k = 0; k < nj; ++k)
                if (candidate[k] && sets.find(setOf(partOf(spec.joints[k].markerI))) == sa) {
                    candidate[k] = false;
                    changed = true;
                    out.notes.push_back("weld '" + spec.joints[k].name +
                                        "' is held as a joint, not folded into one body: joint '" +
                                        spec.joints[j].name +
                                        "' joins two parts of the same welded group");
                }
        }
        if (changed) continue;
        for (std::size_t p = 0; p < np; ++p) {
            const int s = sets.find(setOf(static_cast<int>(p)));
            out.root[p] = s == static_cast<int>(np) ? -1 : s;
        }
        break;
    }
    for (std::size_t j = 0; j < nj; ++j) out.folded[j] = candidate[j];

    // Each folded weld carries the parts on its side away from its group's root (or from the
    // ground): a spanning tree of the group's welds from there, breadth first in joint order;
    // a weld that closes a loop of welds carries nothing (redundant, as a redundant row).
    std::vector<std::vector<std::pair<int, int>>> welds(np);  // per part: (weld, other part)
    for (std::size_t j = 0; j < nj; ++j) {
        if (!out.folded[j]) continue;
        const int a = partOf(spec.joints[j].markerI), b = partOf(spec.joints[j].markerJ);
        welds[static_cast<std::size_t>(a)].push_back({static_cast<int>(j), b});
        welds[static_cast<std::size_t>(b)].push_back({static_cast<int>(j), a});
    }
    std::vector<int> parentWeld(np, -1), order;
    std::vector<bool> seen(np, false);
    std::deque<int> queue;
    for (std::size_t p = 0; p < np; ++p) {
        const bool start =
            out.root[p] == static_cast<int>(p) || (out.root[p] < 0 && spec.parts[p].ground);
        if (!start) continue;
        seen[p] = true;
        queue.push_back(static_cast<int>(p));
    }
    while (!queue.empty()) {
        const int u = queue.front();
        queue.pop_front();
        order.push_back(u);
        for (const auto& [j, v] : welds[static_cast<std::size_t>(u)]) {
            if (seen[static_cast<std::size_t>(v)]) continue;
            seen[static_cast<std::size_t>(v)] = true;
            parentWeld[static_cast<std::size_t>(v)] = j;
            queue.push_back(v);
        }
    }
    // Subtrees, leaves first.
    std::vector<std::vector<int>> subtree(np);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto u = static_cast<std::size_t>(*it);
        subtree[u].push_back(*it);
        const int j = parentWeld[u];
        if (j < 0) continue;
        const int a = partOf(spec.joints[static_cast<std::size_t>(j)].markerI);
        const int b = partOf(spec.joints[static_cast<std::size_t>(j)].markerJ);
        const auto parent = static_cast<std::size_t>(a == *it ? b : a);
        out.carried[static_cast<std::size_t>(j)] = subtree[u];
        subtree[parent].insert(subtree[parent].end(), subtree[u].begin(), subtree[u].end());
    }
    for (auto& c : out.carried) std::sort(c.begin(), c.end());
    return out;
}

}  // namespace engine
