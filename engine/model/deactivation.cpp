#include "engine/model/deactivation.h"

#include <algorithm>

#include "engine/model/state_functions.h"

namespace engine {
namespace {

using Out = std::map<std::string, std::string, std::less<>>;

bool has(const Out& out, std::string_view name) {
    return out.find(name) != out.end();
}

// Marks `name` out for `why` unless it is out already (the first reason stays: the element's
// own deactivation before what it hangs on).
void leaveOut(Out& out, const std::string& name, std::string why) {
    out.emplace(name, std::move(why));
}

bool forceOnJoint(ForceType type) {
    return actsOnJoint(type);
}

// The part a measure argument names: "part.marker" or a part.
std::string_view partOf(std::string_view argument) {
    return argument.substr(0, argument.find('.'));
}

// Why a measure reads something left out, or "".
std::string measureProblem(const MeasureCall& call, const Deactivation& out) {
    if (call.arguments.empty()) return "";
    if (measureReadsJoint(call.kind)) {
        if (auto it = out.joints.find(call.arguments[0]); it != out.joints.end())
            return "joint '" + it->first + "' is " + it->second;
        if (call.kind == MeasureKind::Q || call.kind == MeasureKind::QD) return "";
    }
    for (std::size_t a = measureReadsJoint(call.kind) ? 1 : 0; a < call.arguments.size(); ++a) {
        const auto it = out.parts.find(partOf(call.arguments[a]));
        if (it != out.parts.end()) return "part '" + it->first + "' is " + it->second;
    }
    return "";
}

}  // namespace

std::vector<std::string> Deactivation::describe() const {
    std::vector<std::string> lines;
    const auto add = [&](const Out& out, const char* kind) {
        for (const auto& [name, why] : out)
            lines.push_back(std::string(kind) + " '" + name + "': " + why);
    };
    add(parts, "part");
    add(joints, "joint");
    add(forces, "force");
    add(motions, "motion");
    add(couplers, "coupler");
    add(contactPairs, "contact pair");
    return lines;
}

Deactivation deactivation(const SceneSpec& spec, std::optional<Analysis> analysis) {
    Deactivation out;
    const InactiveSet* set =
        analysis ? &spec.analyses[static_cast<std::size_t>(*analysis)].inactive : nullptr;
    const std::string forAnalysis =
        analysis ? "deactivated for " + std::string(analysisName(*analysis)) : std::string();
    const auto listed = [&](const std::vector<std::string> InactiveSet::*kind,
                            const std::string& name) {
        return set &&
               std::find((set->*kind).begin(), (set->*kind).end(), name) != (set->*kind).end();
    };
    // The element's own deactivation: in the scene, else in the analysis' set.
    const auto own = [&](bool active, const std::vector<std::string> InactiveSet::*kind,
                         const std::string& name) -> std::optional<std::string> {
        if (!active) return std::string("deactivated");
        if (listed(kind, name)) return forAnalysis;
        return std::nullopt;
    };

    for (const Part& part : spec.parts)
        if (!part.ground)
            if (auto why = own(part.active, &InactiveSet::parts, part.name))
                leaveOut(out.parts, part.name, *why);

    for (const Joint& joint : spec.joints) {
        if (auto why = own(joint.active, &InactiveSet::joints, joint.name))
            leaveOut(out.joints, joint.name, *why);
        for (const MarkerRef* end : {&joint.markerI, &joint.markerJ})
            if (has(out.parts, end->part))
                leaveOut(out.joints, joint.name, "on deactivated part '" + end->part + "'");
    }

    for (const CouplerSpec& coupler : spec.couplers) {
        if (auto why = own(coupler.active, &InactiveSet::couplers, coupler.name))
            leaveOut(out.couplers, coupler.name, *why);
        std::vector<std::string> joints{coupler.jointI, coupler.jointJ};
        for (const CouplerTerm& term : coupler.terms) joints.push_back(term.joint);
        for (const std::string& joint : joints)
            if (!joint.empty() && has(out.joints, joint))
                leaveOut(out.couplers, coupler.name, "on deactivated joint '" + joint + "'");
    }

    for (const MotionSpec& motion : spec.motions) {
        if (auto why = own(motion.active, &InactiveSet::motions, motion.name))
            leaveOut(out.motions, motion.name, *why);
        if (has(out.joints, motion.joint))
            leaveOut(out.motions, motion.name, "on deactivated joint '" + motion.joint + "'");
    }

    for (const ForceSpec& force : spec.forces) {
        if (auto why = own(force.active, &InactiveSet::forces, force.name))
            leaveOut(out.forces, force.name, *why);
        if (forceOnJoint(force.type)) {
            if (has(out.joints, force.joint))
                leaveOut(out.forces, force.name, "on deactivated joint '" + force.joint + "'");
        } else {
            for (const MarkerRef* end : force.markerRefs())
                if (has(out.parts, end->part))
                    leaveOut(out.forces, force.name, "on deactivated part '" + end->part + "'");
        }
    }

    for (const ContactPairSpec& pair : spec.contact.pairs) {
        if (listed(&InactiveSet::contactPairs, pair.name))
            leaveOut(out.contactPairs, pair.name, forAnalysis);
        for (const std::string* part : {&pair.partA, &pair.partB})
            if (has(out.parts, *part))
                leaveOut(out.contactPairs, pair.name, "on deactivated part '" + *part + "'");
    }
    return out;
}

Diagnostics deactivationErrors(const SceneSpec& spec, const Deactivation& out) {
    Diagnostics errors;
    // A switch of an element left out would switch nothing.
    for (std::size_t k = 0; k < spec.sensors.size(); ++k) {
        const SensorSpec& sensor = spec.sensors[k];
        if (sensor.action != SensorAction::SwitchOn && sensor.action != SensorAction::SwitchOff)
            continue;
        for (const Out* names : {&out.forces, &out.motions})
            if (const auto it = names->find(sensor.target); it != names->end())
                errors.push_back({Severity::Error, "/sensors/" + std::to_string(k) + "/target",
                                  "switches '" + sensor.target +
                                      "', which is left out of the model (" + it->second +
                                      "): activate it (its 'startsOn' may keep it off until the "
                                      "sensor acts), or remove the sensor"});
    }
    if (out.parts.empty() && out.joints.empty()) return errors;  // measures read only these
    std::vector<std::string> variableNames;
    for (const VariableSpec& v : spec.variables) variableNames.push_back(v.name);
    const auto check = [&](const std::string& where, const std::string& text) {
        std::string error;
        const std::optional<StateText> split = splitStateText(text, variableNames, error);
        if (!split) return;  // validate() reports it
        for (const MeasureCall& call : split->calls)
            if (const std::string problem = measureProblem(call, out); !problem.empty()) {
                errors.push_back({Severity::Error, where,
                                  "reads '" + call.text() + "', but " + problem +
                                      ": its value would mean nothing (deactivate this too, or "
                                      "read something still in the model)"});
                return;
            }
    };
    for (std::size_t k = 0; k < spec.forces.size(); ++k) {
        const ForceSpec& force = spec.forces[k];
        if (has(out.forces, force.name)) continue;
        const std::string at = "/forces/" + std::to_string(k);
        switch (force.type) {
        case ForceType::PointForce:
        case ForceType::PointTorque:
            for (int c = 0; c < 3; ++c)
                check(at + "/components/" + std::to_string(c), force.components[c]);
            break;
        case ForceType::LineForce:
        case ForceType::JointForce:
            check(at + "/magnitude", force.components[0]);
            break;
        case ForceType::JointController:
        case ForceType::ComputedTorque:
            check(at + "/target", force.components[0]);
            break;
        default:
            break;
        }
    }
    for (std::size_t k = 0; k < spec.variables.size(); ++k)
        if (!spec.variables[k].initial)
            check("/variables/" + std::to_string(k) + "/expression", spec.variables[k].expression);
    for (std::size_t k = 0; k < spec.sensors.size(); ++k) {
        const SensorSpec& sensor = spec.sensors[k];
        const std::string at = "/sensors/" + std::to_string(k);
        check(at + "/expression", sensor.expression);
        if (sensor.action == SensorAction::Set) check(at + "/to", sensor.to);
    }
    return errors;
}

SceneSpec withoutInactive(const SceneSpec& spec, const Deactivation& out) {
    SceneSpec active = spec;
    for (Part& part : active.parts)
        if (has(out.parts, part.name)) {
            part.ground = true;  // held where it is placed; its markers are the world's
            part.shapes.clear();
            part.frameMotion.reset();
        }
    const auto drop = [](auto& list, const Out& names) {
        std::erase_if(list, [&](const auto& e) { return has(names, e.name); });
    };
    drop(active.joints, out.joints);
    drop(active.couplers, out.couplers);
    drop(active.motions, out.motions);
    drop(active.forces, out.forces);
    for (ContactPairSpec& pair : active.contact.pairs)
        if (has(out.contactPairs, pair.name)) pair.enabled = false;
    return active;
}

}  // namespace engine
