#pragma once
// Expressions of the mechanism's state: what a force's expression may read besides `time`.
//
// Measures, named as Adams' function expressions name them (marker arguments are "part.marker",
// or a part's name for its own frame; j defaults to the world origin, k to the world axes):
//   q(joint[, n]), qd(joint[, n])   a joint's coordinate n (0: the first; the order of
//                                   docs/scene-format.md) and its rate [rad or m, per s]
//   DM(i[, j])                      the distance between the origins of i and j [m]
//   DX(i[, j[, k]]), DY, DZ         the displacement of i's origin from j's, in k's axes [m]
//   VR(i, j)                        the rate of DM(i, j): positive while they separate [m/s]
//   VM(i[, j])                      the speed of i's origin relative to j's, taken in the
//                                   world [m/s]
//   VX(i[, j[, k]]), VY, VZ         the velocity of i's origin relative to j's (taken in the
//                                   world), in k's axes [m/s]
//   WM(i[, j])                      the magnitude of WX, WY, WZ [rad/s]
//   WX(i[, j[, k]]), WY, WZ         the angular velocity of i relative to j, in k's axes [rad/s]
//   AX(i, j), AY(i, j), AZ(i, j)    the angle of i about j's x (y, z) axis:
//                                   atan2(−z_i·y_j, z_i·z_j), atan2(z_i·x_j, z_i·z_j),
//                                   atan2(x_i·y_j, x_i·x_j) [rad, in (−π, π]]
// and, as of the previous step (see Causality):
//   FX(joint[, k]), FY, FZ          the joint's reaction force on its part I (what part J
//                                   exerts on it, stops, friction and soft rows included), in
//                                   k's axes [N] (the outputs' reaction, engine/analysis/outputs.h)
//   FM(joint)                       its magnitude [N]
//   TX(joint[, k]), TY, TZ, TM      its torque about marker I's origin [N·m]
//   FN(a, b)                        the normal contact force between parts a and b, summed
//                                   over their contact points [N, ≥ 0]
//   FT(a, b)                        the magnitude of their friction force, summed likewise [N]
// and variables (a scene's "variables": a name for an expression of time, measures and other
// variables, evaluated once per instant wherever it is used).
//
// Causality: q … AZ are functions of positions and velocities, which the integrators know at
// each instant before the forces. Reactions and contact forces are what the solve of an
// instant finds from its forces: a force that read them at the same instant would be an
// algebraic loop (with contact, a complementarity problem of its own). They are read as the
// solve found them at the end of the previous step (State::lagged): constant over a step,
// updated after each accepted step (an adaptive method's too), at t = 0 the initial state's
// (solved with every such input 0). The lag is one step (first order in h), and the step's
// force Jacobians leave these inputs out. Without contact (every integrator but timeStepping)
// FN and FT read 0. A variable never refers to itself through others (checked, the cycle
// named).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/expr/expression.h"

namespace engine {

struct SceneSpec;

enum class MeasureKind {
    Q,
    QD,
    DM,
    DX,
    DY,
    DZ,
    VR,
    VM,
    VX,
    VY,
    VZ,
    WM,
    WX,
    WY,
    WZ,
    AX,
    AY,
    AZ,
    // Read from the previous step (kLaggedMeasures): joint reactions, contact forces.
    FX,
    FY,
    FZ,
    FM,
    TX,
    TY,
    TZ,
    TM,
    FN,
    FT
};
constexpr int kMeasureKinds = static_cast<int>(MeasureKind::FT) + 1;

// Whether a measure's first argument is a joint (q, qd and the reactions).
bool measureReadsJoint(MeasureKind kind);
// Whether a measure is read as of the previous step (the reactions and contact forces: what
// the solve of an instant finds after its forces, so an expression of the forces cannot read
// them at the same instant).
bool measureIsLagged(MeasureKind kind);

std::optional<MeasureKind> measureKindFromName(std::string_view name);
std::string_view measureKindName(MeasureKind kind);
// Its unit as the scene format writes units: "m", "m/s", "rad", "rad/s", and for q and qd the
// joint coordinate's ("rad or m").
std::string_view measureUnit(MeasureKind kind);

// One measure as written, its arguments as text: "DM(crank.pin, ground.O)".
struct MeasureCall {
    MeasureKind kind = MeasureKind::DM;
    std::vector<std::string> arguments;
    std::string text() const;  // canonical: "DM(crank.pin, ground.O)"
};

// An expression's text with its measures taken out, each replaced by an input named "_m0",
// "_m1", … (calls[k] for "_mk", one per distinct measure), and the variables it names.
struct StateText {
    std::string rewritten;
    std::vector<MeasureCall> calls;
    std::vector<std::string> variables;  // of `variableNames`, in first-use order
    std::string unknown;                 // the first name that is none of these, nor `time` or `pi`
    // The inputs of the rewritten text: "_m0", …, then the variables' names.
    std::vector<std::string> inputNames() const;
    bool usesState() const { return !calls.empty() || !variables.empty(); }
};

// Splits `text`; on a malformed call ("DM(a" without its ')', a measure without its
// arguments) returns nullopt with the reason in `error`.
std::optional<StateText> splitStateText(const std::string& text,
                                        const std::vector<std::string>& variableNames,
                                        std::string& error,
                                        const std::vector<std::string>& constantNames = {});

// The scene's design variables as an expression's named constants (name, value).
Expression::Constants designConstants(const SceneSpec& spec);
// The scene's tables as an expression's named functions (name, curve); those whose points make
// no curve (validate() says why) left out.
Expression::Tables sceneTables(const SceneSpec& spec);
// Why `text` cannot be read when it calls a table of `spec` whose points make no curve ("it
// calls table 'coil', whose points make no curve: …"); "" when it calls none such.
std::string badTableCall(const SceneSpec& spec, const std::string& text);

// Why a call does not name what its measure needs in `spec` (an unknown marker, part or joint,
// the wrong number of arguments, a coordinate the joint does not have); empty when it does.
std::string measureCallError(const SceneSpec& spec, const MeasureCall& call);

// Parses `text` as an expression of time and of the state of `spec` (its measures and
// variables), checking every call; on failure nullopt and the reason.
std::optional<Expression> parseStateExpression(const SceneSpec& spec, const std::string& text,
                                               StateText& split, std::string& error);

// Where `text` (an expression of the state of `spec`, one parseStateExpression reads) puts
// together quantities of different units, as "adds m and m/s" (engine/expr/expression_tree.h:
// measures and variables have their units, time s, numbers any); "" where it does not or
// cannot be read. A warning, not an error: a coefficient may carry what is missing.
std::string stateUnitMismatch(const SceneSpec& spec, const std::string& text);

// `text` with each measure's arguments passed through `rename` (measure, argument index,
// argument as written → the argument to write), the rest of the text as it was: how renaming a
// part, a marker or a joint reaches the expressions that read it.
std::string renameMeasureArguments(
    const std::string& text,
    const std::function<std::string(MeasureKind, int, const std::string&)>& rename);

// Whether `name` can name a variable: a muparser name that is not a function, a measure,
// `time` or `pi`.
std::string variableNameError(const std::string& name);

// The scene's variables in an order in which each comes after those it uses; when they refer
// to one another in a cycle, nullopt and `cycle` the names around it ("a → b → a").
std::optional<std::vector<int>> variableOrder(const SceneSpec& spec, std::string& cycle);

}  // namespace engine
