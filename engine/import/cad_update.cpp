#include "engine/import/cad_update.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "engine/analysis/assembly.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/edit.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine::io {
namespace {

// Axes closer than this are the same [rad] (as the suggestions judge them).
constexpr double kParallel = 1e-6;

Part* partNamed(SceneSpec& spec, const std::string& name) {
    for (Part& part : spec.parts)
        if (part.name == name) return &part;
    return nullptr;
}

std::size_t indexOf(const SceneSpec& spec, const std::string& name) {
    for (std::size_t k = 0; k < spec.parts.size(); ++k)
        if (spec.parts[k].name == name) return k;
    return spec.parts.size();
}

// The placeholder ground an import adds when no component is the ground: nothing on it.
bool isPlaceholderGround(const SceneSpec& spec, const Part& part) {
    if (!part.ground || !part.shapes.empty() || !part.markers.empty()) return false;
    for (const Joint& joint : spec.joints)
        if (joint.markerI.part == part.name || joint.markerJ.part == part.name) return false;
    return true;
}

std::string gapText(const JointGap& gap) {
    std::string text;
    if (gap.length > 0.0) text = numberText(gap.length * 1e3, 4, "mm") + " apart";
    if (gap.angle > 0.0)
        text +=
            (text.empty() ? "" : " and ") + numberText(gap.angle * 180.0 / kPi, 3, "°") + " askew";
    return text;
}

// The gaps of `spec`'s joints at their parts' placements, by joint id; nullopt with `error`
// when the scene does not compile.
std::optional<std::map<EntityId, JointGap>> gapsOf(const SceneSpec& spec, std::string& error) {
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        error = "the updated scene does not compile";
        for (const Diagnostic& d : compiled.diagnostics)
            if (d.severity == Severity::Error) {
                error += ": " + d.message + (d.where.empty() ? "" : " (" + d.where + ")");
                break;
            }
        return std::nullopt;
    }
    const Model& model = *compiled.model;
    const std::vector<JointGap> gaps = jointGapsAt(model, initialState(model));
    std::map<EntityId, JointGap> byId;
    for (std::size_t j = 0; j < model.joints.size(); ++j) byId[model.joints[j].id] = gaps[j];
    return byId;
}

// A joint frame's axis (its z) in the world, and a point on it.
struct Axis {
    Vec3 point, direction;
};

// Whether suggestion `s` (indices into `spec`) is the joint `joint` of `spec`: the same type
// between the same two parts, with marker I's origin on the suggestion's axis (or at its
// centre, for a ball joint) and its z axis along it.
bool sameJoint(const SceneSpec& spec, const Joint& joint, const JointSuggestion& s,
               double tolerance) {
    if (joint.type != s.type) return false;
    const std::string& a = spec.parts[s.partI].name;
    const std::string& b = spec.parts[s.partJ].name;
    if (!((joint.markerI.part == a && joint.markerJ.part == b) ||
          (joint.markerI.part == b && joint.markerJ.part == a)))
        return false;
    const Part* part = spec.findPart(joint.markerI.part);
    const Marker* marker = spec.findMarker(joint.markerI);
    if (!part || !marker) return false;
    const Transform X_WM = part->X_WP * marker->X_PM;
    const Vec3 z = X_WM.R * Vec3::UnitZ();
    const Vec3 axis = s.X_WJ.R * Vec3::UnitZ();
    const Vec3 d = X_WM.p - s.X_WJ.p;
    if (s.type == JointType::Spherical) return d.norm() <= tolerance;
    if (z.cross(axis).norm() > kParallel) return false;
    if (s.type == JointType::Planar) return std::abs(d.dot(axis)) <= tolerance;
    return (d - d.dot(axis) * axis).norm() <= tolerance;
}

// Moves the markers of `joint` onto the suggestion's frame X_WJ: each keeps its orientation
// when its z axis lies along the new axis (only its origin moves), else takes the frame's.
void refit(SceneSpec& spec, const Joint& joint, const JointSuggestion& s) {
    const Vec3 axis = s.X_WJ.R * Vec3::UnitZ();
    for (const MarkerRef* ref : {&joint.markerI, &joint.markerJ}) {
        Part* part = partNamed(spec, ref->part);
        if (!part) continue;
        for (Marker& marker : part->markers) {
            if (marker.name != ref->marker) continue;
            const Transform X_WM = part->X_WP * marker.X_PM;
            Transform target = s.X_WJ;
            if ((X_WM.R * Vec3::UnitZ()).cross(axis).norm() <= kParallel) target.R = X_WM.R;
            marker.X_PM = part->X_WP.inverse() * target;
        }
    }
}

}  // namespace

bool makeImportedGround(SceneSpec& spec, EntityId id, std::string& error,
                        std::vector<JointSuggestion>* suggestions) {
    const auto chosen = std::find_if(spec.parts.begin(), spec.parts.end(),
                                     [id](const Part& p) { return p.id == id; });
    if (chosen == spec.parts.end() || chosen->ground) {
        error = "no moving part to make the ground";
        return false;
    }
    const auto ground =
        std::find_if(spec.parts.begin(), spec.parts.end(), [](const Part& p) { return p.ground; });
    if (ground != spec.parts.end() && !isPlaceholderGround(spec, *ground)) {
        error = "the scene's ground '" + ground->name +
                "' holds shapes, markers or joints: only an import's empty ground is replaced";
        return false;
    }
    std::vector<std::string> before;
    for (const Part& part : spec.parts) before.push_back(part.name);
    chosen->ground = true;
    chosen->v_WPo_W.setZero();
    chosen->w_WP_W.setZero();
    if (ground != spec.parts.end()) spec.parts.erase(ground);
    // The ground first, as the importer and the scene writer keep it.
    const auto now =
        std::find_if(spec.parts.begin(), spec.parts.end(), [](const Part& p) { return p.ground; });
    std::rotate(spec.parts.begin(), now, now + 1);
    if (suggestions) {
        std::vector<JointSuggestion> kept;
        for (JointSuggestion s : *suggestions) {
            const std::size_t i = indexOf(spec, before[s.partI]);
            const std::size_t j = indexOf(spec, before[s.partJ]);
            if (i == spec.parts.size() || j == spec.parts.size()) continue;
            s.partI = i;
            s.partJ = j;
            kept.push_back(s);
        }
        *suggestions = kept;
    }
    return true;
}

CadUpdate updateImportedScene(SceneSpec& target, const SceneSpec& imported,
                              const std::vector<JointSuggestion>& suggestions, double tolerance) {
    CadUpdate out;
    SceneSpec spec = target;
    CadUpdateReport& report = out.report;
    std::set<std::string> updated;  // part names in `spec`
    std::vector<EntityId> fresh;    // imported parts not in the scene
    std::set<std::string> inFile;
    for (const Part& from : imported.parts) {
        if (isPlaceholderGround(imported, from)) continue;
        inFile.insert(from.name);
        Part* part = partNamed(spec, from.name);
        if (!part && from.ground) {
            // The file's ground component and the scene's ground under another name: its shapes
            // cannot be told from the ground's own.
            for (const Part& p : spec.parts)
                if (p.ground)
                    report.notes.push_back("the ground component '" + from.name +
                                           "' is not the scene's ground '" + p.name +
                                           "': the ground's shapes are left as they were");
            continue;
        }
        if (!part) {
            fresh.push_back(from.id);
            continue;
        }
        part->shapes = from.shapes;
        part->X_WP = from.X_WP;
        if (!part->ground) {
            part->mass = from.mass;
            part->p_PPcm = from.p_PPcm;
            part->I_Pcm_P = from.I_Pcm_P;
            part->density.reset();
        }
        part->colorRgb = from.colorRgb;
        updated.insert(part->name);
        report.updated.push_back(part->name);
    }
    for (const Part& part : spec.parts)
        if (!part.ground && !inFile.count(part.name)) report.missing.push_back(part.name);
    // New components, with fresh ids and names of their own (none is taken: they were not
    // found by name).
    std::map<std::string, std::string> newNames;  // imported name → name in spec
    if (!fresh.empty()) {
        std::string error;
        const std::vector<EntityId> added =
            copyParts(spec, imported, fresh, CopyPlacement{}, error);
        if (added.size() != fresh.size()) {
            out.error = "cannot add the new components: " + error;
            return out;
        }
        for (std::size_t k = 0; k < added.size(); ++k) {
            const std::string name = entityName(spec, added[k]);
            newNames[entityName(imported, fresh[k])] = name;
            report.added.push_back(name);
        }
    }
    // The file's suggestions in spec's parts.
    std::vector<JointSuggestion> mapped;
    for (JointSuggestion s : suggestions) {
        auto nameIn = [&](std::size_t k) {
            const std::string& name = imported.parts.at(k).name;
            const auto it = newNames.find(name);
            return it != newNames.end() ? it->second : name;
        };
        const std::size_t i = indexOf(spec, nameIn(s.partI));
        const std::size_t j = indexOf(spec, nameIn(s.partJ));
        if (i == spec.parts.size() || j == spec.parts.size()) continue;  // (the placeholder)
        s.partI = i;
        s.partJ = j;
        mapped.push_back(s);
    }

    // The joints on updated parts, checked where the file now places them.
    std::string error;
    std::optional<std::map<EntityId, JointGap>> gaps = gapsOf(spec, error);
    if (!gaps) {
        out.error = error;
        return out;
    }
    const double angleTolerance = std::max(tolerance, 1e-9);
    auto fits = [&](const std::map<EntityId, JointGap>& g, EntityId id) {
        const auto it = g.find(id);  // (a joint left out of the model: deactivated, kept)
        return it == g.end() ||
               (it->second.length <= tolerance && it->second.angle <= angleTolerance);
    };
    const auto between = [&spec](const Joint& joint, const JointSuggestion& s) {
        const std::string& a = spec.parts[s.partI].name;
        const std::string& b = spec.parts[s.partJ].name;
        return s.type == joint.type && ((joint.markerI.part == a && joint.markerJ.part == b) ||
                                        (joint.markerI.part == b && joint.markerJ.part == a));
    };
    std::vector<Joint> checked;
    for (const Joint& joint : spec.joints)
        if (updated.count(joint.markerI.part) || updated.count(joint.markerJ.part))
            checked.push_back(joint);
    // First the joints the new geometry makes where they are (a pin still in its hole).
    std::set<std::size_t> used;  // suggestions a joint of the scene makes
    std::set<EntityId> placed;
    for (const Joint& joint : checked)
        for (std::size_t k = 0; k < mapped.size(); ++k)
            if (!used.count(k) && sameJoint(spec, joint, mapped[k], tolerance)) {
                used.insert(k);
                placed.insert(joint.id);
                report.jointsKept.push_back(joint.name);
                break;
            }
    // Then those whose geometry moved within their parts: onto the nearest axis the geometry
    // gives for a joint of their type between their parts. A joint the geometry does not make
    // (a motor's mount, a joint to a part made by hand) stays when it still holds.
    std::map<EntityId, std::size_t> refitted;  // joint → the suggestion it was moved onto
    std::vector<std::pair<EntityId, std::string>> misfits;  // joint, why
    for (const Joint& joint : checked) {
        if (placed.count(joint.id)) continue;
        std::optional<std::size_t> best;
        double nearest = 0.0;
        const Part* partI = spec.findPart(joint.markerI.part);
        const Marker* markerI = spec.findMarker(joint.markerI);
        for (std::size_t k = 0; k < mapped.size() && partI && markerI; ++k) {
            if (used.count(k) || !between(joint, mapped[k])) continue;
            const double d = ((partI->X_WP * markerI->X_PM).p - mapped[k].X_WJ.p).norm();
            if (!best || d < nearest) {
                best = k;
                nearest = d;
            }
        }
        if (best) {
            refit(spec, joint, mapped[*best]);
            used.insert(*best);
            refitted[joint.id] = *best;
            misfits.emplace_back(joint.id, numberText(nearest * 1e3, 4, "mm"));
            continue;
        }
        if (fits(*gaps, joint.id)) {
            report.jointsKept.push_back(joint.name);
            continue;
        }
        misfits.emplace_back(joint.id, "its markers are " + gapText(gaps->at(joint.id)) +
                                           " in the new assembly, and the geometry suggests no "
                                           "such joint between " +
                                           joint.markerI.part + " and " + joint.markerJ.part);
    }
    // The refitted joints checked again; what still misses goes.
    if (!refitted.empty()) {
        gaps = gapsOf(spec, error);
        if (!gaps) {
            out.error = error;
            return out;
        }
    }
    for (const auto& [id, why] : misfits) {
        const std::string name = entityName(spec, id);
        const bool wasRefitted = refitted.count(id) > 0;
        if (wasRefitted && fits(*gaps, id)) {
            report.jointsRefitted.push_back(name + " (moved " + why + " onto the new axis)");
            continue;
        }
        std::string reason = wasRefitted ? "its markers, moved onto the new axis, still miss by " +
                                               gapText(gaps->at(id))
                                         : why;
        if (wasRefitted) used.erase(refitted.at(id));  // (offered again for review)
        const std::vector<std::string> removed = deleteEntity(spec, id);
        if (removed.size() > 1) {
            reason += "; with it went";
            for (std::size_t k = 1; k < removed.size(); ++k)
                reason += (k > 1 ? ", " : " ") + removed[k];
        }
        report.jointsRemoved.push_back(name + ": " + reason);
    }
    for (std::size_t k = 0; k < mapped.size(); ++k)
        if (!used.count(k)) out.suggestions.push_back(mapped[k]);
    target = std::move(spec);
    out.ok = true;
    return out;
}

}  // namespace engine::io
