// Sensors that act (engine/model/switches.h): a held variable set at an event, a force switched
// off, a motion switched on and off, against closed forms of a rotor on an axle; a run resumed
// from a state after a switch goes on exactly; and what is refused, named with its place.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/edit.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

SceneSpec parsed(const std::string& text) {
    return test::parsedScene(text);
}

// Whether reading `text` gives an error at `where` whose message holds `words`.
bool hasError(const std::string& text, const std::string& where, const std::string& words) {
    const Diagnostics diagnostics = io::parseScene(text).diagnostics;
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error && d.where == where &&
            d.message.find(words) != std::string::npos)
            return true;
    for (const Diagnostic& d : diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    return false;
}

std::string spinText(double spin) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", spin);
    return text;
}

// A rotor (Jz = 0.5 kg·m²) on a revolute axle about the world z, no gravity, with `rest`
// (forces, motions, variables, sensors: JSON members) and spun at `spin` rad/s.
std::string rotorScene(const std::string& rest, double spin = 0.0,
                       const std::string& integrator = "dopri45") {
    return R"j({"format": "motus-scene", "version": 1, "minorVersion": 15, "gravity": [0, 0, 0],
      "settings": {"integrator": ")j" +
           integrator + R"j(", "stepSize": 0.001, "outputInterval": 0.01},
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "O"}]},
                {"name": "rotor", "mass": 2, "inertia": [0.3, 0.3, 0.5],
                 "angularVelocity": [0, 0, )j" +
           spinText(spin) + R"j(], "markers": [{"name": "hub"}]}],
      "joints": [{"name": "axle", "type": "revolute", "markerI": "rotor.hub", "markerJ": "ground.O"}],
      )j" + rest +
           "}";
}

// The rotor's angle (unwound) and rate at the run's state.
struct Spin {
    double angle = 0.0, rate = 0.0;
};
Spin spinOf(ForwardDynamics& sim) {
    Outputs out;
    EXPECT_TRUE(sim.outputs(out).ok);
    return {out.jointCoordinates(0), out.jointRates(0)};
}

ForwardDynamics& runTo(ForwardDynamics& sim, double until, double interval = 0.01) {
    const Status started = sim.initialize();
    EXPECT_TRUE(started.ok) << started.message;
    for (int k = 1; k * interval <= until + 1e-12; ++k) {
        const Status s = sim.advance(k * interval);
        EXPECT_TRUE(s.ok) << s.message;
        if (!s.ok || sim.stoppedBy()) break;
    }
    return sim;
}

// A motor of 2 N·m spins the rotor up (ω = 4 t) until a sensor switches it off at 4 rad/s
// (t = 1 s): the rotor then coasts at 4 rad/s.
TEST(SensorActions, AForceSwitchedOffLeavesTheRotorCoastingAtItsSpeed) {
    for (const char* integrator : {"dopri45", "rk4", "implicitEuler"}) {
        SCOPED_TRACE(integrator);
        const std::string rest =
            R"j("forces": [{"name": "motor", "type": "jointForce", "joint": "axle", "magnitude": 2}],
          "sensors": [{"name": "fast", "expression": "qd(axle)", "value": 4, "direction": "rising",
                       "action": "switchOff", "target": "motor"}])j";
        ForwardDynamics sim(test::compiled(parsed(rotorScene(rest, 0.0, integrator))));
        runTo(sim, 2.0);
        ASSERT_EQ(sim.sensorEvents().size(), 1u);
        const bool adaptive = std::string(integrator) == "dopri45";
        EXPECT_NEAR(sim.sensorEvents()[0].time, 1.0, adaptive ? 1e-9 : 1e-6);
        ASSERT_EQ(sim.state().switches.size(), 1u);
        EXPECT_EQ(sim.state().switches[0], 0.0);
        const Spin s = spinOf(sim);
        // dopri45 stops at the instant; a fixed step at the step after it (ω overshoots by at
        // most one step's 2 N·m × h / J).
        EXPECT_NEAR(s.rate, 4.0, adaptive ? 1e-8 : 4.0 * 1e-3 + 1e-9);
        EXPECT_NEAR(s.angle, 2.0 + 4.0 * 1.0, adaptive ? 1e-7 : 1e-2);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        ASSERT_EQ(out.controllerEffort.size(), 1u);
        EXPECT_EQ(out.controllerEffort[0], 0.0);  // the motor's torque, off
    }
}

// A velocity-level motion of 3 rad/s that starts off is switched on at 0.5 s and off at 1.5 s,
// a 1 N·m torque acting all along: ω = 2 t, then 3 (a jump: an impulse), then 3 + 2 (t − 1.5).
TEST(SensorActions, AMotionSwitchedOnAndOffHoldsItsSpeedOnlyBetween) {
    const std::string rest =
        R"j("forces": [{"name": "push", "type": "jointForce", "joint": "axle", "magnitude": 1}],
      "motions": [{"name": "drive", "joint": "axle", "level": "velocity", "expression": "3", "startsOn": false}],
      "sensors": [{"name": "engage", "expression": "time", "value": 0.5, "action": "switchOn", "target": "drive"},
                  {"name": "release", "expression": "time", "value": 1.5, "action": "switchOff", "target": "drive"}])j";
    for (const char* integrator :
         {"dopri45", "rk4", "symplecticEuler", "implicitEuler", "timeStepping"}) {
        SCOPED_TRACE(integrator);
        // The instants fall on steps: the fixed-step methods switch there too. Their angles
        // are off by what the method makes of a constant torque (first order: ½ h α t).
        const double angleTolerance = std::string(integrator) == "dopri45" ? 1e-7
                                      : std::string(integrator) == "rk4"   ? 1e-9
                                                                           : 3e-3;
        ForwardDynamics sim(test::compiled(parsed(rotorScene(rest, 0.0, integrator))));
        const Status started = sim.initialize();
        ASSERT_TRUE(started.ok) << started.message;
        ASSERT_TRUE(sim.advance(0.4).ok);
        EXPECT_NEAR(spinOf(sim).rate, 0.8, 1e-9);  // free, pushed
        ASSERT_TRUE(sim.advance(1.0).ok);
        EXPECT_NEAR(spinOf(sim).rate, 3.0, 1e-9);  // held
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        ASSERT_EQ(out.driverEffort.size(), 1u);
        EXPECT_NEAR(out.driverEffort[0], -1.0, 1e-6);  // holding against the push
        const Status ran = sim.advance(2.0);
        ASSERT_TRUE(ran.ok) << ran.message;
        ASSERT_EQ(sim.sensorEvents().size(), 2u);
        EXPECT_NEAR(sim.sensorEvents()[0].time, 0.5, 1e-9);
        EXPECT_NEAR(sim.sensorEvents()[1].time, 1.5, 1e-9);
        const Spin s = spinOf(sim);
        EXPECT_NEAR(s.rate, 4.0, 1e-8);
        EXPECT_NEAR(s.angle, 0.25 + 3.0 + 1.5 + 0.25, angleTolerance);
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_EQ(out.driverEffort[0], 0.0);  // off again: no actuator torque
    }
}

// A held variable counts the rotor's turns (1 rev/s): a sensor on sin(q) rising through 0 sets
// it to laps + 1, and a torque that reads it (−0.1 N·m per lap) brakes the rotor lap by lap.
TEST(SensorActions, AHeldVariableCountsEventsAndForcesReadIt) {
    const std::string rest = R"j("variables": [{"name": "laps", "initial": 0}],
      "forces": [{"name": "brake", "type": "jointForce", "joint": "axle", "magnitude": "-0.1*laps"}],
      "sensors": [{"name": "lap", "expression": "sin(q(axle))", "value": 0, "direction": "rising",
                   "action": "set", "target": "laps", "to": "laps + 1"}])j";
    ForwardDynamics sim(test::compiled(parsed(rotorScene(rest, 2.0 * kPi))));
    runTo(sim, 1.5);
    // One lap at 2π rad/s, unbraked: the count becomes 1 at t = 1 s exactly.
    ASSERT_EQ(sim.sensorEvents().size(), 1u);
    EXPECT_NEAR(sim.sensorEvents()[0].time, 1.0, 1e-9);
    ASSERT_EQ(sim.state().switches.size(), 1u);
    EXPECT_EQ(sim.state().switches[0], 1.0);
    // Then braked at 0.2 rad/s² for the half second after.
    const Spin s = spinOf(sim);
    EXPECT_NEAR(s.rate, 2.0 * kPi - 0.2 * 0.5, 1e-8);
    EXPECT_NEAR(s.angle, 2.0 * kPi * 1.5 - 0.5 * 0.2 * 0.25, 1e-7);
}

// A run resumed from a state recorded after a switch goes on as the original did.
TEST(SensorActions, ARunResumedAfterASwitchGoesOnExactly) {
    const std::string rest =
        R"j("forces": [{"name": "motor", "type": "jointForce", "joint": "axle", "magnitude": "2 - qd(axle)"}],
      "motions": [{"name": "drive", "joint": "axle", "level": "velocity", "expression": "1", "startsOn": false}],
      "sensors": [{"name": "fast", "expression": "qd(axle)", "value": 1.5, "direction": "rising",
                   "action": "switchOff", "target": "motor"},
                  {"name": "hold", "expression": "time", "value": 1.7, "action": "switchOn", "target": "drive"}])j";
    const auto model = test::compiled(parsed(rotorScene(rest)));
    ForwardDynamics whole(model);
    runTo(whole, 2.5);
    ForwardDynamics first(model);
    runTo(first, 1.2);
    const State saved = first.state();
    ASSERT_EQ(saved.switches, (std::vector<double>{0.0, 0.0}));
    ForwardDynamics resumed(model);
    ASSERT_TRUE(resumed.resume(saved).ok);
    for (int k = 121; k <= 250; ++k) ASSERT_TRUE(resumed.advance(k * 0.01).ok);
    EXPECT_EQ(resumed.state().switches, whole.state().switches);
    EXPECT_EQ(resumed.state().switches, (std::vector<double>{0.0, 1.0}));
    EXPECT_NEAR((resumed.state().q - whole.state().q).norm(), 0.0, 1e-14);
    EXPECT_NEAR((resumed.state().v - whole.state().v).norm(), 0.0, 1e-14);
    EXPECT_NEAR(spinOf(resumed).rate, 1.0, 1e-9);
}

// What sensors switched is recorded with every frame, as channels too ("laps.value",
// "drive.on"), and read back with the frame's state.
TEST(SensorActions, TheSwitchesAreRecordedAsChannelsAndWithTheState) {
    const std::string rest = R"j("variables": [{"name": "laps", "initial": 2}],
      "motions": [{"name": "drive", "joint": "axle", "level": "velocity", "expression": "1", "startsOn": false}],
      "sensors": [{"name": "go", "expression": "time", "value": 0.5, "action": "switchOn", "target": "drive"},
                  {"name": "count", "expression": "time", "value": 0.7, "action": "set", "target": "laps", "to": "laps*10 + qd(axle)"}])j";
    const auto model = test::compiled(parsed(rotorScene(rest)));
    const FrameLayout layout(*model);
    const int laps = layout.findChannel("laps.value"), drive = layout.findChannel("drive.on");
    ASSERT_GE(laps, 0);
    ASSERT_GE(drive, 0);
    ForwardDynamics sim(model);
    runTo(sim, 1.0);
    EXPECT_EQ(sim.state().switches, (std::vector<double>{21.0, 1.0}));  // 2·10 + 1 rad/s
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    std::vector<double> row(static_cast<std::size_t>(layout.size()));
    layout.encode(sim.state(), out, row.data());
    EXPECT_EQ(layout.channels()[static_cast<std::size_t>(laps)].value(row.data()), 21.0);
    EXPECT_EQ(layout.channels()[static_cast<std::size_t>(drive)].value(row.data()), 1.0);
    State back;
    Outputs outBack;
    layout.decode(row.data(), back, outBack);
    EXPECT_EQ(back.switches, sim.state().switches);
}

// A position-level motion switched on where its joint is not would make the parts jump: the run
// stops there, naming the sensor, the motion and the gap.
TEST(SensorActions, APositionMotionSwitchedOnAwayFromItsJointStopsTheRun) {
    const std::string rest =
        R"j("motions": [{"name": "lock", "joint": "axle", "expression": "0", "startsOn": false}],
      "sensors": [{"name": "grab", "expression": "time", "value": 0.5, "action": "switchOn", "target": "lock"}])j";
    ForwardDynamics sim(test::compiled(parsed(rotorScene(rest, 1.0))));
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(1.0);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("sensor 'grab' switches motion 'lock' on at t = 0.5"),
              std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("0.5 rad from what its expression '0' prescribes"), std::string::npos)
        << s.message;
}

// A sensor's target follows its force or motion when renamed, and goes with it when deleted.
TEST(SensorActions, ATargetFollowsItsElementRenamedAndGoesWithItDeleted) {
    SceneSpec spec = parsed(rotorScene(
        R"j("forces": [{"name": "motor", "type": "jointForce", "joint": "axle", "magnitude": 1}],
            "motions": [{"name": "drive", "joint": "axle", "level": "velocity", "expression": "1", "startsOn": false}],
            "sensors": [{"name": "cut", "expression": "time", "value": 1, "action": "switchOff", "target": "motor"},
                        {"name": "go", "expression": "time", "value": 2, "action": "switchOn", "target": "drive"},
                        {"name": "mark", "expression": "time", "value": 3, "action": "mark"}])j"));
    ASSERT_TRUE(renameEntity(spec, spec.forces[0].id, "engine"));
    EXPECT_EQ(spec.sensors[0].target, "engine");
    ASSERT_TRUE(renameEntity(spec, spec.motions[0].id, "clutch"));
    EXPECT_EQ(spec.sensors[1].target, "clutch");
    const std::vector<std::string> removed = deleteEntity(spec, spec.forces[0].id);
    EXPECT_NE(std::find(removed.begin(), removed.end(), "cut"), removed.end());
    ASSERT_EQ(spec.sensors.size(), 2u);
    EXPECT_EQ(spec.sensors[0].name, "go");
    EXPECT_TRUE(compile(spec).model);
}

// A switch of an element left out of the model (deactivated, or for the analysis) would switch
// nothing: refused at the sensor's target, saying why.
TEST(SensorActions, ASwitchOfAnElementLeftOutIsRefused) {
    const SceneSpec spec = parsed(rotorScene(
        R"j("forces": [{"name": "motor", "type": "jointForce", "joint": "axle", "magnitude": 1, "active": false}],
            "sensors": [{"name": "cut", "expression": "time", "value": 1, "action": "switchOff", "target": "motor"}])j"));
    const CompileResult c = compile(spec);
    EXPECT_FALSE(c.model);
    bool said = false;
    for (const Diagnostic& d : c.diagnostics)
        said = said || (d.where == "/sensors/0/target" &&
                        d.message.find("switches 'motor', which is left out of the model "
                                       "(deactivated)") != std::string::npos);
    EXPECT_TRUE(said);
}

TEST(SensorActions, WhatASensorActsOnIsCheckedWithItsPlace) {
    const auto errorsOf = [](const std::string& rest) {
        return (rotorScene(
            R"j("variables": [{"name": "rate", "expression": "qd(axle)"}, {"name": "held", "initial": 0}],
                "forces": [{"name": "motor", "type": "jointForce", "joint": "axle", "magnitude": 1}],
                "sensors": [)j" +
            rest + "]"));
    };
    EXPECT_TRUE(hasError(
        errorsOf(
            R"j({"name": "s", "expression": "time", "value": 1, "action": "set", "target": "nope", "to": 1})j"),
        "/sensors/0/target", "no variable named 'nope' to set"));
    EXPECT_TRUE(hasError(
        errorsOf(
            R"j({"name": "s", "expression": "time", "value": 1, "action": "set", "target": "rate", "to": 1})j"),
        "/sensors/0/target", "variable 'rate' is an expression"));
    EXPECT_TRUE(hasError(
        errorsOf(
            R"j({"name": "s", "expression": "time", "value": 1, "action": "set", "target": "held", "to": "DM(rotor.rim)"})j"),
        "/sensors/0/to", "no marker"));
    EXPECT_TRUE(hasError(
        errorsOf(
            R"j({"name": "s", "expression": "time", "value": 1, "action": "switchOff", "target": "moter"})j"),
        "/sensors/0/target", "no force or motion named 'moter' to switch off"));
    EXPECT_TRUE(hasError(
        errorsOf(
            R"j({"name": "s", "expression": "time", "value": 1, "action": "set", "target": "held"})j"),
        "/sensors/0", "missing required key 'to'"));
    EXPECT_TRUE(hasError(
        errorsOf(R"j({"name": "s", "expression": "time", "value": 1, "target": "motor"})j"),
        "/sensors/0/target", "only a sensor that sets a variable or switches an element"));
    EXPECT_TRUE(
        hasError(rotorScene(R"j("variables": [{"name": "x", "initial": 0, "expression": "1"}])j"),
                 "/variables/0/expression", "an expression or a held value"));
}

}  // namespace
}  // namespace engine
