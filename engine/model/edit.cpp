#include "engine/model/edit.h"

namespace engine {
namespace {

// Plot channels are "<entity>.<quantity>": the entity part follows a rename.
void renameChannels(SceneSpec& spec, const std::string& from, const std::string& to) {
    for (PlotSpec& plot : spec.plots)
        for (std::string& channel : plot.channels)
            if (channel.size() > from.size() && channel.compare(0, from.size(), from) == 0 && channel[from.size()] == '.')
                channel = to + channel.substr(from.size());
}

}  // namespace

bool renameEntity(SceneSpec& spec, EntityId id, const std::string& name) {
    for (Part& part : spec.parts) {
        if (part.id == id) {
            const std::string old = part.name;
            part.name = name;
            for (Joint& j : spec.joints)
                for (MarkerRef* ref : {&j.markerI, &j.markerJ})
                    if (ref->part == old) ref->part = name;
            for (ForceSpec& f : spec.forces)
                for (MarkerRef* ref : {&f.markerI, &f.markerJ})
                    if (ref->part == old) ref->part = name;
            for (ContactPairSpec& p : spec.contact.pairs) {
                if (p.partA == old) p.partA = name;
                if (p.partB == old) p.partB = name;
            }
            renameChannels(spec, old, name);
            return true;
        }
        for (Marker& marker : part.markers) {
            if (marker.id != id) continue;
            const std::string old = marker.name;
            marker.name = name;
            for (Joint& j : spec.joints)
                for (MarkerRef* ref : {&j.markerI, &j.markerJ})
                    if (ref->part == part.name && ref->marker == old) ref->marker = name;
            for (ForceSpec& f : spec.forces)
                for (MarkerRef* ref : {&f.markerI, &f.markerJ})
                    if (ref->part == part.name && ref->marker == old) ref->marker = name;
            return true;
        }
    }
    for (Joint& joint : spec.joints) {
        if (joint.id != id) continue;
        const std::string old = joint.name;
        joint.name = name;
        for (MotionSpec& m : spec.motions)
            if (m.joint == old) m.joint = name;
        for (ForceSpec& f : spec.forces)
            if (f.joint == old) f.joint = name;
        renameChannels(spec, old, name);
        return true;
    }
    for (ForceSpec& force : spec.forces) {
        if (force.id != id) continue;
        renameChannels(spec, force.name, name);
        force.name = name;
        return true;
    }
    for (MotionSpec& motion : spec.motions) {
        if (motion.id != id) continue;
        renameChannels(spec, motion.name, name);
        motion.name = name;
        return true;
    }
    for (ContactPairSpec& pair : spec.contact.pairs) {
        if (pair.id != id) continue;
        renameChannels(spec, pair.name, name);
        pair.name = name;
        return true;
    }
    return false;
}

std::vector<std::string> deleteEntity(SceneSpec& spec, EntityId id) {
    std::vector<std::string> removed;
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
            const bool onMarker = refersTo(it->markerI, part, marker) || refersTo(it->markerJ, part, marker);
            const bool onJoint = !it->joint.empty() && onRemovedJoint(it->joint);
            if ((it->type != ForceType::RotationalSpringDamper && it->type != ForceType::JointController && onMarker) ||
                onJoint) {
                removed.push_back(it->name);
                it = spec.forces.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = spec.motions.begin(); it != spec.motions.end();) {
            if (onRemovedJoint(it->joint)) {
                removed.push_back(it->name);
                it = spec.motions.erase(it);
            } else {
                ++it;
            }
        }
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
                ++it;
            }
        }
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
    if (eraseNamed(spec.forces) || eraseNamed(spec.motions) || eraseNamed(spec.contact.pairs)) return removed;
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
    for (const ContactPairSpec& p : spec.contact.pairs)
        if (p.id == id) return p.name;
    return {};
}

}  // namespace engine
