#pragma once
// CAD assemblies written with OpenCASCADE for the STEP importer's tests and examples.

#include <string>

namespace engine::test {

// A four-bar linkage as solids, in millimetres, standing in the x-z plane (pins along y, so
// gravity swings it): the frame (a plate with two pins, A and D, 200 mm apart), the crank (60 mm,
// a hole at A and a pin at B), the coupler (180 mm, holes at B and C) and the rocker (120 mm, a
// hole at D and a pin at C), 10 mm plates stacked along the pins, every pin Ø10 in a hole Ø10.
// The crank stands at 60° from the frame. Components named frame, crank, coupler, rocker.
void writeFourBarStep(const std::string& path);

}  // namespace engine::test
