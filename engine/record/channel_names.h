#pragma once
// The names of the output channels, spelled once. The recording's channels (FrameLayout), the
// CSV columns of `motus-cli` (engine/io/csv_export.h), the plots, their CSV export and the
// GUI's channel menus all name a quantity from here, so one quantity has one name wherever a
// user meets it: "crank.x", "pinB.Fz", "energy.potential".
//
// A channel of a part, a joint, a motion, a controller or a contact pair is the entity's name,
// a dot and the quantity: owner + "." + kVelocity[0] is "crank.vx".

#include <cstddef>
#include <string>

namespace engine::channels {

inline constexpr const char* kTime = "time";

// Per moving part, in world axes: its centre of mass's position [m] and velocity [m/s], its
// angular velocity [rad/s], the orientation of the part frame (a quaternion), and the
// accelerations a kinematic analysis finds [m/s², rad/s²].
inline constexpr const char* kPosition[3] = {"x", "y", "z"};
inline constexpr const char* kVelocity[3] = {"vx", "vy", "vz"};
inline constexpr const char* kAngularVelocity[3] = {"wx", "wy", "wz"};
inline constexpr const char* kOrientation[4] = {"qw", "qx", "qy", "qz"};
inline constexpr const char* kAcceleration[3] = {"ax", "ay", "az"};
// The same of a part seen in a moving frame (Part::frameMotion), in the frame part's axes:
// position from its origin, velocity and angular velocity relative to it: "bob.deck.x",
// "bob.deck.vx", "bob.deck.wz".
inline std::string inFrame(const std::string& frame, const char* quantity) {
    return frame + "." + quantity;
}
inline constexpr const char* kAngularAcceleration[3] = {"alphax", "alphay", "alphaz"};

// Per joint: its coordinates ("q0", "q1": angle [rad] or slide [m]) and their rates
// ("q0rate"); the reaction on part I at marker I in world axes [N, N·m], the same in marker
// J's axes, and the magnitudes of force and torque.
inline std::string coordinate(std::size_t k) {
    return "q" + std::to_string(k);
}
inline std::string coordinateRate(std::size_t k) {
    return coordinate(k) + "rate";
}
inline constexpr const char* kReaction[6] = {"Fx", "Fy", "Fz", "Tx", "Ty", "Tz"};
inline constexpr const char* kReactionInJ[6] = {"FxJ", "FyJ", "FzJ", "TxJ", "TyJ", "TzJ"};
inline constexpr const char* kForceMagnitude = "F";
inline constexpr const char* kTorqueMagnitude = "T";

// Per limited joint coordinate: the force or torque of its end stops on part I along J's z
// axis [N or N·m], positive from the lower stop: "door.limit" (a joint of one coordinate),
// "sleeve.q1limit" (coordinate 1 of a joint of several).
inline constexpr const char* kLimit = "limit";
inline std::string limit(std::size_t k, std::size_t coordinates) {
    return coordinates == 1 ? std::string(kLimit) : coordinate(k) + kLimit;
}

// Per joint coordinate with friction: the friction force or torque on part I along J's z axis
// [N or N·m] (Coulomb and viscous): "slide.friction", "sleeve.q1friction"; a ball joint's: the
// size of its friction torque (≥ 0).
inline constexpr const char* kFriction = "friction";
inline std::string friction(std::size_t k, std::size_t coordinates) {
    return coordinates == 1 ? std::string(kFriction) : coordinate(k) + kFriction;
}

// Per coupler: its force [N] (a gear's or rack's tooth force, a screw's axial force; a linear
// coupler's multiplier) and the efforts it puts on its first two coordinates [N·m or N]:
// "mesh.force", "mesh.effortI", "mesh.effortJ".
inline constexpr const char* kCouplerForce = "force";
inline constexpr const char* kCouplerEffort[2] = {"effortI", "effortJ"};

// Per motion and per joint controller: the effort of its actuator [N or N·m] and its power [W].
inline constexpr const char* kEffort = "effort";
inline constexpr const char* kPower = "power";

// Per spring-damper: its tension [N] (positive pulling its markers together), its length [m]
// and the length's rate [m/s]: "damper.force", "damper.length", "damper.lengthRate". Per
// rotational spring-damper: its torque [N·m] (positive resisting a positive twist), its joint's
// angle [rad] and the angle's rate [rad/s]: "torsion.torque", "torsion.angle",
// "torsion.angleRate".
inline constexpr const char* kSpringChannels[3] = {"force", "length", "lengthRate"};
inline constexpr const char* kRotationalSpringChannels[3] = {"torque", "angle", "angleRate"};

// What sensors switch (engine/model/switches.h): a held variable's value ("laps.value"), and
// whether a force or a motion is on, 1, or off, 0 ("motor.on").
inline constexpr const char* kHeldValue = "value";
inline constexpr const char* kSwitchedOn = "on";

// Per contact pair entry: the normal and friction force summed over its points [N].
inline constexpr const char* kPairNormalForce = "Fn";
inline constexpr const char* kPairFrictionForce = "Ft";

// The whole mechanism [J]. Potential is gravitational plus elastic; total is kinetic plus
// potential. The work of the motions' actuators and the energy dissipated (dampers, friction,
// plastic impacts) since the run began.
inline constexpr const char* kKineticEnergy = "energy.kinetic";
inline constexpr const char* kGravitationalEnergy = "energy.gravitational";
inline constexpr const char* kElasticEnergy = "energy.elastic";
inline constexpr const char* kPotentialEnergy = "energy.potential";
inline constexpr const char* kTotalEnergy = "energy.total";
inline constexpr const char* kDriverWork = "energy.driverWork";
inline constexpr const char* kDissipated = "energy.dissipated";
// The largest joint error after the step [m].
inline constexpr const char* kConstraintError = "constraint.error";

// Contact, over the step that ended at the output: the number of contacts, their summed normal
// force [N] and deepest penetration [m]; the solver's sweeps, residual [m/s] and the steps it
// left unconverged.
inline constexpr const char* kContactCount = "contact.count";
inline constexpr const char* kContactNormalForce = "contact.normalForce";
inline constexpr const char* kContactMaxDepth = "contact.maxDepth";
inline constexpr const char* kContactIterations = "contact.iterations";
inline constexpr const char* kContactResidual = "contact.residual";
inline constexpr const char* kContactUnconverged = "contact.unconvergedSteps";

// A channel of an entity: "crank" and "vx" make "crank.vx".
inline std::string of(const std::string& owner, const std::string& quantity) {
    return owner + "." + quantity;
}

}  // namespace engine::channels
