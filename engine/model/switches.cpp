#include "engine/model/switches.h"

#include "engine/math/number_text.h"
#include "engine/model/model.h"

namespace engine {

std::shared_ptr<const Model> switchedModel(const std::shared_ptr<const Model>& base,
                                           const std::vector<double>& switches) {
    if (!base || switches.size() != base->switches.size()) return base;
    bool initial = true;
    for (std::size_t k = 0; k < switches.size(); ++k)
        initial = initial && switches[k] == base->switches[k].initial;
    if (initial) return base;
    auto model = std::make_shared<Model>(*base);
    for (std::size_t k = 0; k < switches.size(); ++k) {
        const SwitchModel& s = base->switches[k];
        const auto at = static_cast<std::size_t>(s.index);
        switch (s.kind) {
        case SwitchKind::Held: {
            VariableModel& v = model->variables[at];
            v.expression = Expression::constant(switches[k]);
            v.expression.setText(v.name);
            break;
        }
        case SwitchKind::Force:
            model->forces[at].on = switches[k] != 0.0;
            break;
        case SwitchKind::Motion:
            model->drivers[at].on = switches[k] != 0.0;
            break;
        case SwitchKind::Slip:
            model->forces[at].wraps[static_cast<std::size_t>(s.via)].slip = switches[k];
            break;
        case SwitchKind::Slipping:
            model->forces[at].wraps[static_cast<std::size_t>(s.via)].slipping =
                switches[k] > 0.0   ? 1
                : switches[k] < 0.0 ? -1
                                    : 0;
            break;
        }
    }
    return model;
}

std::string switchText(const Model& model, int slot, double value) {
    const SwitchModel& s = model.switches[static_cast<std::size_t>(slot)];
    switch (s.kind) {
    case SwitchKind::Held:
        return s.name + " = " + numberText(value);
    case SwitchKind::Force:
        return "force '" + s.name + "' " + (value != 0.0 ? "on" : "off");
    case SwitchKind::Motion:
        return "motion '" + s.name + "' " + (value != 0.0 ? "on" : "off");
    case SwitchKind::Slip:
        return s.name + " = " + numberText(value) + " m";
    case SwitchKind::Slipping:
        return s.name + (value > 0.0   ? ": slips toward its end"
                         : value < 0.0 ? ": slips toward its start"
                                       : ": grips");
    }
    return s.name;
}

}  // namespace engine
