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
