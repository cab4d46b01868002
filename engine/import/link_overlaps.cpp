#include "engine/import/link_overlaps.h"

#include <algorithm>
#include <set>
#include <string>

#include "engine/analysis/start_overlaps.h"
#include "engine/import/import_reporter.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine::io {

void switchOffOverlappingLinks(SceneSpec& spec, Diagnostics& diagnostics) {
    const auto colliding = std::count_if(spec.parts.begin(), spec.parts.end(), [](const Part& p) {
        return std::any_of(p.shapes.begin(), p.shapes.end(),
                           [](const Shape& s) { return s.collides(); });
    });
    if (colliding < 2) return;  // (nothing to overlap: no model to build)
    SceneSpec probe = spec;
    probe.contact.enabled = true;  // (with the integrator that steps contact)
    probe.settings.integrator = IntegratorType::TimeStepping;
    const CompileResult compiled = compile(probe);
    if (!compiled.model) return;
    const Model& model = *compiled.model;
    const StartOverlaps found = findStartOverlaps(model, initialState(model), spec.contact.slop);
    std::set<std::string> names;
    for (const ContactPairSpec& pair : spec.contact.pairs) names.insert(pair.name);
    std::string listed;
    int switched = 0;
    for (const auto& [a, b] : found.each) {
        const PartModel& partA = model.parts[static_cast<std::size_t>(a)];
        const PartModel& partB = model.parts[static_cast<std::size_t>(b)];
        if (partA.body == partB.body) continue;  // (welded into one body: never touch)
        ContactPairSpec pair;
        pair.id = spec.newId();
        pair.partA = partA.name;
        pair.partB = partB.name;
        const std::string base = sanitize("noTouch_" + partA.name + "_" + partB.name);
        pair.name = base;
        for (int k = 2; names.count(pair.name); ++k) pair.name = base + "_" + std::to_string(k);
        names.insert(pair.name);
        pair.enabled = false;
        spec.contact.pairs.push_back(std::move(pair));
        if (switched < 6)
            listed += (switched ? ", '" : "'") + partA.name + "' and '" + partB.name + "'";
        ++switched;
    }
    if (switched == 0) return;
    diagnostics.push_back(
        {Severity::Warning, "",
         std::to_string(switched) +
             (switched == 1 ? " pair of links overlaps" : " pairs of links overlap") +
             " where the file places them (" + listed + (switched > 6 ? ", …" : "") +
             "): contact between them is switched off (contact pairs noTouch_…), so that they do "
             "not push each other apart against their joints when contact is on"});
}

}  // namespace engine::io
