#pragma once
// Mechanisms built in C++ for the physics tests (SI units, z up, gravity −9.81 z unless set).

#include <string>

#include "engine/model/scene_spec.h"

namespace engine::test {

// Box part with box inertia, frame at its centre, mass m, edges e, at `position`, turned by R.
Part box(SceneSpec& spec, const std::string& name, double m, const Vec3& e, const Vec3& position,
         const Quat& R = Quat::Identity());

Part groundPart(SceneSpec& spec);

// Adds a marker to `part` at p (part frame) with its z axis along `zAxis` (part frame).
void addMarker(SceneSpec& spec, Part& part, const std::string& name, const Vec3& p,
               const Vec3& zAxis = Vec3::UnitZ());

Joint joint(SceneSpec& spec, const std::string& name, JointType type, const std::string& markerI,
            const std::string& markerJ);

// A position-level motion `name` on joint `joint`'s first coordinate: its value f(time).
MotionSpec motion(SceneSpec& spec, const std::string& name, const std::string& joint,
                  const std::string& f);

// Planar chain of n boxes 0.1 × 0.02 × 0.02 m, 1 kg, revolute about +y, horizontal along +x
// (the chain-N benchmark of the design notes): joint k at (0.1 k, 0, 0).
SceneSpec chain(int links, IntegratorType integrator, double stepSize);

// The fourbar benchmark: A (0,0,0), D (0.4,0,0); crank AB 0.1 at 45°, coupler BC 0.4,
// rocker DC 0.3; revolutes about +y at A, B, C, D; 1 kg links of section 0.02 × 0.02.
SceneSpec fourBar(IntegratorType integrator, double stepSize);

// A flywheel: a 2 kg wheel of moment of inertia `inertia` about every axis, on a revolute
// "axle" about z from its marker "wheel.hub" to "ground.axle", both at the origin; no gravity.
SceneSpec flywheel(double inertia);

// A 1 kg block (5 cm cube) hanging from the ground on a bushing "mount" of stiffness k along
// every axis (k × 1e-3 about them), both markers "mount" at the origin, under gravity.
SceneSpec blockOnBushing(double k, IntegratorType integrator, double stepSize);

}  // namespace engine::test
