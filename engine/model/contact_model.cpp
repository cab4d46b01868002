#include "engine/model/contact_model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace engine {
namespace {

std::pair<int, int> ordered(int a, int b) {
    return a < b ? std::pair{a, b} : std::pair{b, a};
}

}  // namespace

bool ContactModel::mayTouch(int a, int b) const {
    if (a == b) return false;
    const ContactPartModel& pa = parts.at(static_cast<std::size_t>(a));
    const ContactPartModel& pb = parts.at(static_cast<std::size_t>(b));
    if (pa.shapes.empty() || pb.shapes.empty() || !pa.filter.enabled || !pb.filter.enabled)
        return false;
    if (pa.ground && pb.ground) return false;
    if ((pa.filter.group & pb.filter.mask) == 0 || (pb.filter.group & pa.filter.mask) == 0)
        return false;
    return !std::binary_search(excluded.begin(), excluded.end(), ordered(a, b));
}

const ContactPairModel* ContactModel::pair(int a, int b) const {
    const auto [lo, hi] = ordered(a, b);
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::pair{lo, hi},
                                     [](const ContactPairModel& p, const std::pair<int, int>& key) {
                                         return std::pair{p.partA, p.partB} < key;
                                     });
    return it != pairs.end() && it->partA == lo && it->partB == hi ? &*it : nullptr;
}

ContactMaterial ContactModel::combined(int a, int b) const {
    const ContactMaterial& ma = materials.at(static_cast<std::size_t>(a));
    const ContactMaterial& mb = materials.at(static_cast<std::size_t>(b));
    ContactMaterial m{std::sqrt(ma.friction * mb.friction),
                      std::max(ma.restitution, mb.restitution)};
    if (const ContactPairModel* p = pair(a, b)) {
        if (p->friction) m.friction = *p->friction;
        if (p->restitution) m.restitution = *p->restitution;
    }
    return m;
}

ContactModel buildContactModel(const SceneSpec& spec) {
    ContactModel model;
    model.enabled = spec.contact.enabled;
    model.settings = spec.contact;
    model.settings.pairs.clear();
    std::map<std::string, int, std::less<>> index;
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        index[part.name] = static_cast<int>(p);
        std::vector<Shape> touching;  // a robot's visual-only shapes take no part in contact
        for (const Shape& s : part.shapes)
            if (s.collides()) touching.push_back(s);
        model.parts.push_back(
            {part.name, part.ground, part.X_WP, part.collision, std::move(touching)});
        model.materials.push_back(part.material);
    }
    auto find = [&](const std::string& name) {
        const auto it = index.find(name);
        return it == index.end() ? -1 : it->second;
    };
    for (const ContactPairSpec& spec_pair : spec.contact.pairs) {
        const int a = find(spec_pair.partA), b = find(spec_pair.partB);
        if (a < 0 || b < 0 || a == b) continue;
        const auto [lo, hi] = ordered(a, b);
        model.pairs.push_back(
            {spec_pair.name, lo, hi, spec_pair.enabled, spec_pair.friction, spec_pair.restitution});
        if (!spec_pair.enabled) model.excluded.emplace_back(lo, hi);
    }
    std::sort(model.pairs.begin(), model.pairs.end(),
              [](const ContactPairModel& x, const ContactPairModel& y) {
                  return std::pair{x.partA, x.partB} < std::pair{y.partA, y.partB};
              });
    // Parts joined directly by a joint do not touch unless the joint says so (its markers
    // usually sit inside both parts' geometry).
    for (const Joint& joint : spec.joints) {
        if (joint.collide) continue;
        const int a = find(joint.markerI.part), b = find(joint.markerJ.part);
        if (a < 0 || b < 0 || a == b) continue;
        model.excluded.push_back(ordered(a, b));
    }
    std::sort(model.excluded.begin(), model.excluded.end());
    model.excluded.erase(std::unique(model.excluded.begin(), model.excluded.end()),
                         model.excluded.end());
    return model;
}

}  // namespace engine
