#include "engine/io/mechanism_info.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/analysis/mobility.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/part_motion.h"
#include "engine/model/deactivation.h"
#include "engine/model/model.h"

namespace engine::io {

MechanismInfo mechanismInfo(const std::shared_ptr<const Model>& model, const SceneSpec* scene,
                            const Diagnostics& diagnostics, const std::string& file) {
    MechanismInfo out;
    nlohmann::ordered_json info;
    info["file"] = file;
    nlohmann::ordered_json errors = nlohmann::json::array();
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error)
            errors.push_back({{"where", d.where}, {"message", d.message}});
    if (!model) {
        info["errors"] = errors;
        out.json = info.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        return out;
    }
    info["name"] = model->name;
    // Each part with its own mass properties; welded parts folded into one body
    // (engine/model/welds.h) name the body they move as.
    const Model& own = model->unfolded ? *model->unfolded : *model;
    nlohmann::ordered_json parts = nlohmann::json::array();
    std::vector<int> entryOfBody(static_cast<std::size_t>(model->bodyCount()), -1);
    int folded = 0;
    for (std::size_t p = 0; p < model->parts.size(); ++p) {
        if (isGroundPart(*model, p)) continue;
        const int u = own.bodyOfPart[p];
        const BodyModel& body = own.bodies[static_cast<std::size_t>(u)];
        nlohmann::ordered_json entry = {
            {"name", body.name},
            {"mass", body.mass},
            {"principalInertia", {body.inertia.x(), body.inertia.y(), body.inertia.z()}}};
        const int b = model->parts[p].body;
        if (b == kGround) {
            entry["weldedTo"] = "ground";
            ++folded;
        } else if (model->bodies[static_cast<std::size_t>(b)].name != body.name) {
            entry["movesAs"] = model->bodies[static_cast<std::size_t>(b)].name;
            ++folded;
        } else {
            entryOfBody[static_cast<std::size_t>(b)] = static_cast<int>(parts.size());
        }
        parts.push_back(entry);
    }
    // A moving frame's part with its prescribed motion (its six equations hold it there).
    for (const int j : model->frameJoints) {
        const FrameMotionModel& m = *model->joints[static_cast<std::size_t>(j)].frameMotion;
        auto texts = [](const Expression(&e)[3]) {
            return nlohmann::ordered_json::array({e[0].text(), e[1].text(), e[2].text()});
        };
        const int entry = entryOfBody[static_cast<std::size_t>(m.body)];
        if (entry >= 0)
            parts[static_cast<std::size_t>(entry)]["movingFrame"] = {
                {"translation", texts(m.translation)}, {"rotation", texts(m.rotation)}};
    }
    info["parts"] = parts;
    // Bodies the solver moves: one per part, less the parts welded into another's body; and
    // the welds that could have folded and are held as joints, with why.
    info["bodies"] = model->bodyCount();
    if (folded > 0 || !model->weldNotes.empty()) {
        nlohmann::ordered_json welds = {{"partsFolded", folded}};
        if (!model->weldNotes.empty()) welds["heldAsJoints"] = model->weldNotes;
        info["welds"] = welds;
    }
    nlohmann::ordered_json joints = nlohmann::json::array();
    for (const JointModel& joint : model->joints) {
        if (joint.frameMotion) continue;  // (with its part, above)
        // Exact equations remove degrees of freedom; a soft joint's are springs (none).
        nlohmann::ordered_json j = {{"name", joint.name},
                                    {"type", std::string(jointTypeName(joint.type))},
                                    {"equations", joint.rows}};
        if (joint.softRows > 0) j["softEquations"] = joint.softRows;
        if (joint.folded) j["folded"] = true;  // its parts one body: no equations
        joints.push_back(j);
    }
    info["joints"] = joints;
    nlohmann::ordered_json motions = nlohmann::json::array();
    for (const DriverModel& d : model->drivers)
        motions.push_back({{"name", d.name},
                           {"joint", model->joints[static_cast<std::size_t>(d.joint)].name},
                           {"expression", d.f.text()}});
    info["motions"] = motions;
    // What the scene deactivates (and what hangs on it), kept in the scene, out of the model;
    // then what each analysis with a set of its own leaves out.
    if (!model->inactive.empty()) info["inactive"] = model->inactive;
    if (scene) {
        nlohmann::ordered_json analyses = nlohmann::json::object();
        for (int a = 0; a < kAnalysisCount; ++a) {
            const auto analysis = static_cast<Analysis>(a);
            if (scene->analyses[static_cast<std::size_t>(a)].inactive.empty()) continue;
            analyses[std::string(analysisName(analysis))] = {
                {"inactive", deactivation(*scene, analysis).describe()}};
        }
        if (!analyses.empty()) info["analyses"] = analyses;
    }
    // What force expressions and sensors read of the state: each measure once, the variables
    // in the order they are evaluated, and the sensors with their levels.
    if (!model->measures.empty()) {
        nlohmann::ordered_json measures = nlohmann::json::array();
        for (const MeasureModel& m : model->measures) measures.push_back(m.text);
        info["measures"] = measures;
    }
    if (!model->variables.empty()) {
        nlohmann::ordered_json variables = nlohmann::json::array();
        for (const VariableModel& v : model->variables) {
            if (v.held >= 0)  // held: its initial value, set by sensors as the run goes
                variables.push_back(
                    {{"name", v.name},
                     {"initial", model->switches[static_cast<std::size_t>(v.held)].initial}});
            else
                variables.push_back({{"name", v.name}, {"expression", v.expression.text()}});
        }
        info["variables"] = variables;
    }
    if (!model->sensors.empty()) {
        nlohmann::ordered_json sensors = nlohmann::json::array();
        for (const SensorModel& sensor : model->sensors) {
            nlohmann::ordered_json js = {
                {"name", sensor.name},
                {"expression", sensor.expression.text()},
                {"value", sensor.value},
                {"direction", sensor.direction == SensorDirection::Rising    ? "rising"
                              : sensor.direction == SensorDirection::Falling ? "falling"
                                                                             : "either"},
                {"action", std::string(sensorActionName(sensor.action))}};
            if (sensor.target >= 0)
                js["target"] = model->switches[static_cast<std::size_t>(sensor.target)].name;
            if (sensor.action == SensorAction::Set) js["to"] = sensor.to.text();
            sensors.push_back(js);
        }
        info["sensors"] = sensors;
    }

    // Mobility at the initial pose, each redundant equation with what it means and what would
    // remove it (the same analysis the GUI shows).
    const MobilityReport mobility = engine::mobility(model);
    info["dof"] = {{"gruebler", mobility.grueblerDof}, {"actual", mobility.actualDof}};
    nlohmann::ordered_json redundant = nlohmann::json::array();
    for (const RedundantEquation& r : mobility.redundant) {
        nlohmann::ordered_json entry;
        if (r.motion.empty()) {
            entry["joint"] = r.joint;
        } else {
            entry["motion"] = r.motion;
        }
        entry["equation"] = r.equation;
        entry["meaning"] = r.meaning;
        entry["remedy"] = r.remedy;
        redundant.push_back(entry);
    }
    info["redundantConstraints"] = redundant;
    info["redundantCount"] = mobility.redundantCount;
    info["summary"] = mobility.summary();
    // The coordinates a run steps in (settings.formulation; for auto, which and why).
    const FormulationChoice formulation = chooseFormulation(*model);
    info["formulation"] = {
        {"asked", std::string(formulationName(model->settings.formulation))},
        {"runs", formulation.refused                                 ? "none"
                 : formulation.formulation == Formulation::Recursive ? "recursive"
                                                                     : "maximal"},
        {"reason", formulation.reason}};
    if (formulation.refused) {
        const std::string message =
            "the scene asks for the recursive formulation, but " + formulation.reason;
        errors.push_back({{"where", "/settings/formulation"}, {"message", message}});
        out.problems.push_back({"/settings/formulation", message});
    }
    if (!mobility.ok) {
        errors.push_back({{"where", ""}, {"message", mobility.message}});
        out.problems.push_back({"", mobility.message});
    }
    info["errors"] = errors;
    out.json = info.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    out.ok = mobility.ok && !formulation.refused;
    return out;
}

}  // namespace engine::io
