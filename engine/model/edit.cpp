#include "engine/model/edit.h"

#include "engine/model/state_functions.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

namespace engine {
namespace {

// Plot channels are "<entity>.<quantity>": the entity part follows a rename.
void renameChannels(SceneSpec& spec, const std::string& from, const std::string& to) {
    const auto rename = [&](std::string& channel) {
        if (channel.size() > from.size() && channel.compare(0, from.size(), from) == 0 &&
            channel[from.size()] == '.')
            channel = to + channel.substr(from.size());
    };
    for (PlotSpec& plot : spec.plots) {
        for (std::string& channel : plot.channels) rename(channel);
        rename(plot.x);
    }
}

}  // namespace

namespace {
// Every expression that may read the state (force expressions, variables, sensors) with its
// measures' arguments passed through `rename`.
void renameInExpressions(
    SceneSpec& spec,
    const std::function<std::string(MeasureKind, int, const std::string&)>& rename) {
    for (ForceSpec& f : spec.forces)
        for (std::string& c : f.components) c = renameMeasureArguments(c, rename);
    for (VariableSpec& v : spec.variables)
        v.expression = renameMeasureArguments(v.expression, rename);
    for (SensorSpec& s : spec.sensors) {
        s.expression = renameMeasureArguments(s.expression, rename);
        s.to = renameMeasureArguments(s.to, rename);
    }
}
// A sensor that switches a force or motion names it: a renamed one stays its target.
void renameSensorTargets(SceneSpec& spec, const std::string& from, const std::string& to) {
    for (SensorSpec& s : spec.sensors)
        if ((s.action == SensorAction::SwitchOn || s.action == SensorAction::SwitchOff) &&
            s.target == from)
            s.target = to;
}
// Whether a measure's argument `index` names a joint (q, qd and the reactions: the first), or a
// part or a marker (the others but q's and qd's coordinate number).
bool isJointArgument(MeasureKind kind, int index) {
    return measureReadsJoint(kind) && index == 0;
}
bool isFrameArgument(MeasureKind kind, int index) {
    return kind != MeasureKind::Q && kind != MeasureKind::QD && !isJointArgument(kind, index);
}

// An analysis' sets name elements: a renamed one keeps its place in them.
void renameInAnalyses(SceneSpec& spec, std::vector<std::string> InactiveSet::*kind,
                      const std::string& from, const std::string& to) {
    for (AnalysisSpec& a : spec.analyses)
        for (std::string& n : a.inactive.*kind)
            if (n == from) n = to;
}

// Names in the analyses' sets whose element is gone are dropped with it.
void pruneAnalyses(SceneSpec& spec) {
    const auto prune = [](std::vector<std::string>& names, const auto& elements) {
        std::erase_if(names, [&](const std::string& n) {
            return std::none_of(elements.begin(), elements.end(),
                                [&](const auto& e) { return e.name == n; });
        });
    };
    for (AnalysisSpec& a : spec.analyses) {
        prune(a.inactive.parts, spec.parts);
        prune(a.inactive.joints, spec.joints);
        prune(a.inactive.forces, spec.forces);
        prune(a.inactive.motions, spec.motions);
        prune(a.inactive.couplers, spec.couplers);
        prune(a.inactive.contactPairs, spec.contact.pairs);
    }
}
}  // namespace

bool renameEntity(SceneSpec& spec, EntityId id, const std::string& name) {
    for (Part& part : spec.parts) {
        if (part.id == id) {
            const std::string old = part.name;
            part.name = name;
            // A measure's argument names the part, or a marker on it.
            renameInExpressions(spec,
                                [&](MeasureKind kind, int index, const std::string& argument) {
                                    if (!isFrameArgument(kind, index)) return argument;
                                    if (argument == old) return name;
                                    if (argument.rfind(old + ".", 0) == 0)
                                        return name + argument.substr(old.size());
                                    return argument;
                                });
            for (Joint& j : spec.joints)
                for (MarkerRef* ref : {&j.markerI, &j.markerJ})
                    if (ref->part == old) ref->part = name;
            for (ForceSpec& f : spec.forces)
                for (MarkerRef* ref : f.markerRefs())
                    if (ref->part == old) ref->part = name;
            for (ContactPairSpec& p : spec.contact.pairs) {
                if (p.partA == old) p.partA = name;
                if (p.partB == old) p.partB = name;
            }
            renameChannels(spec, old, name);
            renameInAnalyses(spec, &InactiveSet::parts, old, name);
            return true;
        }
        for (Marker& marker : part.markers) {
            if (marker.id != id) continue;
            const std::string old = marker.name;
            marker.name = name;
            renameInExpressions(
                spec, [&](MeasureKind kind, int index, const std::string& argument) {
                    return isFrameArgument(kind, index) && argument == part.name + "." + old
                               ? part.name + "." + name
                               : argument;
                });
            for (Joint& j : spec.joints)
                for (MarkerRef* ref : {&j.markerI, &j.markerJ})
                    if (ref->part == part.name && ref->marker == old) ref->marker = name;
            for (ForceSpec& f : spec.forces)
                for (MarkerRef* ref : f.markerRefs())
                    if (ref->part == part.name && ref->marker == old) ref->marker = name;
            return true;
        }
    }
    for (Joint& joint : spec.joints) {
        if (joint.id != id) continue;
        const std::string old = joint.name;
        joint.name = name;
        renameInExpressions(spec, [&](MeasureKind kind, int index, const std::string& argument) {
            return isJointArgument(kind, index) && argument == old ? name : argument;
        });
        for (MotionSpec& m : spec.motions)
            if (m.joint == old) m.joint = name;
        for (ForceSpec& f : spec.forces) {
            if (f.joint == old) f.joint = name;
            for (CableVia& v : f.via)  // a turning pulley's
                if (v.joint == old) v.joint = name;
        }
        for (CouplerSpec& c : spec.couplers) {
            for (std::string* ref : {&c.jointI, &c.jointJ})
                if (*ref == old) *ref = name;
            for (CouplerTerm& t : c.terms)
                if (t.joint == old) t.joint = name;
        }
        renameChannels(spec, old, name);
        renameInAnalyses(spec, &InactiveSet::joints, old, name);
        return true;
    }
    for (ForceSpec& force : spec.forces) {
        if (force.id != id) continue;
        renameChannels(spec, force.name, name);
        renameInAnalyses(spec, &InactiveSet::forces, force.name, name);
        renameSensorTargets(spec, force.name, name);
        force.name = name;
        return true;
    }
    for (MotionSpec& motion : spec.motions) {
        if (motion.id != id) continue;
        renameChannels(spec, motion.name, name);
        renameInAnalyses(spec, &InactiveSet::motions, motion.name, name);
        renameSensorTargets(spec, motion.name, name);
        motion.name = name;
        return true;
    }
    for (CouplerSpec& coupler : spec.couplers) {
        if (coupler.id != id) continue;
        renameChannels(spec, coupler.name, name);
        renameInAnalyses(spec, &InactiveSet::couplers, coupler.name, name);
        coupler.name = name;
        return true;
    }
    for (ContactPairSpec& pair : spec.contact.pairs) {
        if (pair.id != id) continue;
        renameChannels(spec, pair.name, name);
        renameInAnalyses(spec, &InactiveSet::contactPairs, pair.name, name);
        pair.name = name;
        return true;
    }
    return false;
}

namespace {
// Whether coupler `c` names joint `joint`.
bool couplesJoint(const CouplerSpec& c, const std::string& joint) {
    if (c.jointI == joint || c.jointJ == joint) return true;
    for (const CouplerTerm& t : c.terms)
        if (t.joint == joint) return true;
    return false;
}
}  // namespace

namespace {
// What expressions may read by name: parts, "part.marker"s, joints, variables.
struct ReadableNames {
    std::set<std::string> parts, markers, joints, variables;
    explicit ReadableNames(const SceneSpec& spec) {
        for (const Part& p : spec.parts) {
            parts.insert(p.name);
            for (const Marker& m : p.markers) markers.insert(p.name + "." + m.name);
        }
        for (const Joint& j : spec.joints) joints.insert(j.name);
        for (const VariableSpec& v : spec.variables) variables.insert(v.name);
    }
};

// After a deletion: the force elements, variables and sensors whose expressions read what went
// (a measure of a part, marker or joint that was in `before` and is no longer, a variable that
// went) go too, and in turn what reads a variable that went; named in `removed`.
void dropReadersOf(SceneSpec& spec, const ReadableNames& before,
                   std::vector<std::string>& removed) {
    for (bool changed = true; changed;) {
        changed = false;
        const ReadableNames now(spec);
        auto gone = [&](const std::set<std::string>& was, const std::set<std::string>& is,
                        const std::string& name) { return was.count(name) && !is.count(name); };
        auto readsGone = [&](const std::string& text) {
            bool reads = false;
            renameMeasureArguments(text, [&](MeasureKind kind, int index, const std::string& a) {
                if (isJointArgument(kind, index))
                    reads = reads || gone(before.joints, now.joints, a);
                else if (isFrameArgument(kind, index))
                    reads = reads || gone(before.parts, now.parts, a) ||
                            gone(before.markers, now.markers, a);
                return a;
            });
            std::string error;
            const std::vector<std::string> names(now.variables.begin(), now.variables.end());
            if (const auto split = splitStateText(text, names, error);
                split && !split->unknown.empty())
                reads = reads || gone(before.variables, now.variables, split->unknown);
            return reads;
        };
        auto drop = [&](auto& list, auto reads) {
            for (auto it = list.begin(); it != list.end();) {
                if (reads(*it)) {
                    removed.push_back(it->name);
                    it = list.erase(it);
                    changed = true;
                } else {
                    ++it;
                }
            }
        };
        drop(spec.forces, [&](const ForceSpec& f) {
            return readsGone(f.components[0]) || readsGone(f.components[1]) ||
                   readsGone(f.components[2]);
        });
        drop(spec.variables, [&](const VariableSpec& v) { return readsGone(v.expression); });
        // A sensor goes with what it reads, and with the element it sets or switches.
        const auto targetGone = [&](const SensorSpec& s) {
            const auto named = [&](const auto& list) {
                return std::any_of(list.begin(), list.end(),
                                   [&](const auto& e) { return e.name == s.target; });
            };
            switch (s.action) {
            case SensorAction::Set:
                return !named(spec.variables);
            case SensorAction::SwitchOn:
            case SensorAction::SwitchOff:
                return !named(spec.forces) && !named(spec.motions);
            default:
                return false;
            }
        };
        drop(spec.sensors, [&](const SensorSpec& s) {
            return readsGone(s.expression) || (s.action == SensorAction::Set && readsGone(s.to)) ||
                   targetGone(s);
        });
    }
}
}  // namespace

std::vector<std::string> deleteEntity(SceneSpec& spec, EntityId id) {
    const ReadableNames before(spec);
    std::vector<std::string> removed = deleteEntityOnly(spec, id);
    if (!removed.empty()) dropReadersOf(spec, before, removed);
    pruneAnalyses(spec);
    return removed;
}

std::vector<std::string> deleteEntityOnly(SceneSpec& spec, EntityId id) {
    std::vector<std::string> removed;
    // The couplers on a removed joint go with it.
    auto dropCouplersOf = [&](const std::string& joint) {
        for (auto it = spec.couplers.begin(); it != spec.couplers.end();) {
            if (couplesJoint(*it, joint)) {
                removed.push_back(it->name);
                it = spec.couplers.erase(it);
            } else {
                ++it;
            }
        }
    };
    auto refersTo = [](const MarkerRef& ref, const std::string& part, const std::string& marker) {
        return ref.part == part && (marker.empty() || ref.marker == marker);
    };
    // Joints and forces on a part (any marker when `marker` is empty), then what hangs on them.
    auto dropUsersOf = [&](const std::string& part, const std::string& marker) {
        std::vector<std::string> joints;
        for (auto it = spec.joints.begin(); it != spec.joints.end();) {
            if (refersTo(it->markerI, part, marker) || refersTo(it->markerJ, part, marker)) {
                joints.push_back(it->name);
                removed.push_back(it->name);
                it = spec.joints.erase(it);
            } else {
                ++it;
            }
        }
        auto onRemovedJoint = [&](const std::string& joint) {
            for (const std::string& j : joints)
                if (j == joint) return true;
            return false;
        };
        for (auto it = spec.forces.begin(); it != spec.forces.end();) {
            bool onMarker = false;
            for (const MarkerRef* ref : std::as_const(*it).markerRefs())
                onMarker = onMarker || refersTo(*ref, part, marker);
            const bool onJoint = !it->joint.empty() && onRemovedJoint(it->joint);
            if ((!actsOnJoint(it->type) && onMarker) || onJoint) {
                removed.push_back(it->name);
                it = spec.forces.erase(it);
            } else {
                ++it;
            }
        }
        // A turning pulley whose joint went slides from now on (frictionless).
        for (ForceSpec& f : spec.forces)
            for (CableVia& v : f.via)
                if (!v.joint.empty() && onRemovedJoint(v.joint)) v.joint.clear();
        for (auto it = spec.motions.begin(); it != spec.motions.end();) {
            if (onRemovedJoint(it->joint)) {
                removed.push_back(it->name);
                it = spec.motions.erase(it);
            } else {
                ++it;
            }
        }
        for (const std::string& j : joints) dropCouplersOf(j);
    };
    for (auto part = spec.parts.begin(); part != spec.parts.end(); ++part) {
        if (part->id == id) {
            if (part->ground) return {};
            const std::string name = part->name;
            removed.push_back(name);
            spec.parts.erase(part);
            dropUsersOf(name, "");
            for (auto it = spec.contact.pairs.begin(); it != spec.contact.pairs.end();) {
                if (it->partA == name || it->partB == name) {
                    removed.push_back(it->name);
                    it = spec.contact.pairs.erase(it);
                } else {
                    ++it;
                }
            }
            return removed;
        }
        for (auto marker = part->markers.begin(); marker != part->markers.end(); ++marker) {
            if (marker->id != id) continue;
            const std::string partName = part->name, markerName = marker->name;
            removed.push_back(partName + "." + markerName);
            part->markers.erase(marker);
            dropUsersOf(partName, markerName);
            return removed;
        }
    }
    for (auto joint = spec.joints.begin(); joint != spec.joints.end(); ++joint) {
        if (joint->id != id) continue;
        // Its markers' users other than itself stay; what acts on the joint goes with it.
        const std::string name = joint->name;
        removed.push_back(name);
        spec.joints.erase(joint);
        for (auto it = spec.motions.begin(); it != spec.motions.end();) {
            if (it->joint == name) {
                removed.push_back(it->name);
                it = spec.motions.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = spec.forces.begin(); it != spec.forces.end();) {
            if (it->joint == name) {
                removed.push_back(it->name);
                it = spec.forces.erase(it);
            } else {
                for (CableVia& v : it->via)  // a turning pulley on it slides from now on
                    if (v.joint == name) v.joint.clear();
                ++it;
            }
        }
        dropCouplersOf(name);
        return removed;
    }
    auto eraseNamed = [&](auto& list) {
        for (auto it = list.begin(); it != list.end(); ++it) {
            if (it->id != id) continue;
            removed.push_back(it->name);
            list.erase(it);
            return true;
        }
        return false;
    };
    if (eraseNamed(spec.forces) || eraseNamed(spec.motions) || eraseNamed(spec.couplers) ||
        eraseNamed(spec.contact.pairs))
        return removed;
    return {};
}

std::string entityName(const SceneSpec& spec, EntityId id) {
    for (const Part& part : spec.parts) {
        if (part.id == id) return part.name;
        for (const Marker& marker : part.markers)
            if (marker.id == id) return part.name + "." + marker.name;
    }
    for (const Joint& j : spec.joints)
        if (j.id == id) return j.name;
    for (const ForceSpec& f : spec.forces)
        if (f.id == id) return f.name;
    for (const MotionSpec& m : spec.motions)
        if (m.id == id) return m.name;
    for (const CouplerSpec& c : spec.couplers)
        if (c.id == id) return c.name;
    for (const ContactPairSpec& p : spec.contact.pairs)
        if (p.id == id) return p.name;
    return {};
}

namespace {

// A name not yet used in `taken`: the name itself, else "crank" → "crank_2", "crank_2" → "crank_3", ...
std::string freshName(const std::string& name, std::set<std::string>& taken) {
    if (taken.insert(name).second) return name;  // not taken: kept (pasting into another scene)
    std::string base = name;
    const std::size_t underscore = name.rfind('_');
    if (underscore != std::string::npos && underscore + 1 < name.size() &&
        name.find_first_not_of("0123456789", underscore + 1) == std::string::npos)
        base = name.substr(0, underscore);
    for (int k = 2;; ++k) {
        std::string candidate = base + "_" + std::to_string(k);
        if (taken.insert(candidate).second) return candidate;
    }
}

// The reflection S of a world axis applied to a frame's pose (S R S, S p) and to a vector.
Vec3 reflect(const Vec3& v, int axis) {
    Vec3 r = v;
    r(axis) = -r(axis);
    return r;
}
Quat reflect(const Quat& q, int axis) {
    // S R S for the reflection of axis k: the rotation's axis reflected as an axial vector
    // (−S u) with the same angle: the quaternion's vector part becomes −S v.
    Quat r = q;
    Eigen::Vector3d v = -reflect(Vec3(q.vec()), axis);
    r.vec() = v;
    return r;
}
Transform reflect(const Transform& X, int axis) {
    return {reflect(X.R, axis), reflect(X.p, axis)};
}

}  // namespace

std::vector<EntityId> copyParts(SceneSpec& target, const SceneSpec& source,
                                const std::vector<EntityId>& parts, const CopyPlacement& placement,
                                std::string& error) {
    std::vector<EntityId> created;
    const int axis = placement.mirrorAxis;
    std::set<std::string> taken;
    for (const Part& p : target.parts) taken.insert(p.name);
    for (const Joint& j : target.joints) taken.insert(j.name);
    for (const ForceSpec& f : target.forces) taken.insert(f.name);
    for (const MotionSpec& m : target.motions) taken.insert(m.name);
    for (const CouplerSpec& c : target.couplers) taken.insert(c.name);
    for (const ContactPairSpec& c : target.contact.pairs) taken.insert(c.name);

    // The parts first: every reference among the copies goes through these renames.
    std::map<std::string, std::string> partName, jointName;
    std::vector<const Part*> chosen;
    for (EntityId id : parts)
        for (const Part& part : source.parts)
            if (part.id == id && !part.ground && !partName.count(part.name)) {
                if (axis >= 0)
                    for (const Shape& shape : part.shapes)
                        if (shape.type == ShapeType::Mesh) {
                            error = "part '" + part.name +
                                    "' has a mesh shape, which cannot be mirrored (its mirror "
                                    "image would need a "
                                    "mesh file of its own)";
                            return {};
                        }
                chosen.push_back(&part);
                partName[part.name] = "";
            }
    if (chosen.empty()) {
        error = parts.empty() ? "nothing is selected to copy"
                              : "only parts can be copied, and not the ground";
        return {};
    }
    auto mapped = [&](const MarkerRef& ref, MarkerRef& out) {
        const auto it = partName.find(ref.part);
        if (it == partName.end()) return false;
        out = {it->second, ref.marker};
        return true;
    };
    for (const Part* original : chosen) {
        Part part = *original;
        part.id = target.newId();
        part.name = freshName(original->name, taken);
        partName[original->name] = part.name;
        for (Marker& marker : part.markers) marker.id = target.newId();
        if (axis >= 0) {
            const Vec3& c = placement.mirrorPoint;
            part.X_WP = reflect(Transform{part.X_WP.R, part.X_WP.p - c}, axis);
            part.X_WP.p += c;
            part.p_PPcm = reflect(part.p_PPcm, axis);
            Mat3 S = Mat3::Identity();
            S(axis, axis) = -1.0;
            part.I_Pcm_P = S * part.I_Pcm_P * S;
            part.v_WPo_W = reflect(part.v_WPo_W, axis);
            part.w_WP_W = -reflect(part.w_WP_W, axis);
            for (Marker& marker : part.markers) marker.X_PM = reflect(marker.X_PM, axis);
            for (Shape& shape : part.shapes) {
                shape.X_PG = reflect(shape.X_PG, axis);
                // Every shape is its own mirror image in its frame's axes but the cone in z
                // (apex up becomes apex down): turned half a turn about x it is again.
                if (shape.type == ShapeType::Cone && axis == 2)
                    shape.X_PG.R =
                        (shape.X_PG.R * Quat(Eigen::AngleAxisd(kPi, Vec3::UnitX()))).normalized();
            }
        }
        part.X_WP = placement.X * part.X_WP;
        part.v_WPo_W = placement.X.R * part.v_WPo_W;
        part.w_WP_W = placement.X.R * part.w_WP_W;
        created.push_back(part.id);
        target.parts.push_back(std::move(part));
    }
    for (const Joint& original : source.joints) {
        Joint joint = original;
        if (!mapped(original.markerI, joint.markerI) || !mapped(original.markerJ, joint.markerJ))
            continue;
        joint.id = target.newId();
        joint.name = freshName(original.name, taken);
        jointName[original.name] = joint.name;
        target.joints.push_back(std::move(joint));
    }
    for (const ForceSpec& original : source.forces) {
        ForceSpec force = original;
        const bool onJoint = actsOnJoint(original.type);
        const bool onePoint =
            original.type == ForceType::PointForce || original.type == ForceType::PointTorque;
        if (onJoint) {
            const auto it = jointName.find(original.joint);
            if (it == jointName.end()) continue;
            force.joint = it->second;
        } else if (!mapped(original.markerI, force.markerI) ||
                   (!onePoint && !mapped(original.markerJ, force.markerJ))) {
            continue;
        }
        bool viaMapped = true;  // a cable's via points too, and its turning pulleys' joints
        for (std::size_t k = 0; k < original.via.size(); ++k) {
            viaMapped = viaMapped && mapped(original.via[k].marker, force.via[k].marker);
            if (original.via[k].joint.empty()) continue;
            const auto it = jointName.find(original.via[k].joint);
            viaMapped = viaMapped && it != jointName.end();
            if (viaMapped) force.via[k].joint = it->second;
        }
        if (!viaMapped) continue;
        force.id = target.newId();
        force.name = freshName(original.name, taken);
        target.forces.push_back(std::move(force));
    }
    for (const MotionSpec& original : source.motions) {
        const auto it = jointName.find(original.joint);
        if (it == jointName.end()) continue;
        MotionSpec motion = original;
        motion.id = target.newId();
        motion.name = freshName(original.name, taken);
        motion.joint = it->second;
        target.motions.push_back(std::move(motion));
    }
    // A coupler comes along when all its joints do.
    for (const CouplerSpec& original : source.couplers) {
        CouplerSpec coupler = original;
        auto remap = [&](std::string& joint) {
            if (joint.empty()) return true;
            const auto it = jointName.find(joint);
            if (it == jointName.end()) return false;
            joint = it->second;
            return true;
        };
        bool all = remap(coupler.jointI) && remap(coupler.jointJ);
        for (CouplerTerm& t : coupler.terms) all = all && remap(t.joint);
        if (!all) continue;
        coupler.id = target.newId();
        coupler.name = freshName(original.name, taken);
        target.couplers.push_back(std::move(coupler));
    }
    for (const ContactPairSpec& original : source.contact.pairs) {
        const auto a = partName.find(original.partA), b = partName.find(original.partB);
        if (a == partName.end() || b == partName.end()) continue;
        ContactPairSpec pair = original;
        pair.id = target.newId();
        pair.name = freshName(original.name, taken);
        pair.partA = a->second;
        pair.partB = b->second;
        target.contact.pairs.push_back(std::move(pair));
    }
    return created;
}

}  // namespace engine
