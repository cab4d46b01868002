#pragma once
// The canonical robots of tests/data/robots as scenes for tests and benchmarks: ANYmal C,
// Unitree Go1 (URDF, floating bases, stops; Go1 with joint friction) and the iCub humanoid
// (URDF, floating base, 32 joints with stops and dampers, mesh collision shapes) dropped onto a
// floor, and the Franka Panda (URDF) bolted down.

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "engine/import/urdf_import.h"
#include "engine/model/scene_spec.h"

namespace engine::test {

enum class Robot { AnymalC, Go1, Panda, ICub };

// Under tests/data/robots/urdf.
inline const char* const kRobotFiles[] = {
    "example-robot-data/robots/anymal_c_simple_description/urdf/anymal.urdf",
    "example-robot-data/robots/go1_description/urdf/go1.urdf",
    "example-robot-data/robots/panda_description/urdf/panda.urdf",
    "icub-models/iCub/robots/iCubGazeboV2_5/model.urdf",
};

inline std::string robotFile(Robot which) {
    return std::string(MOTUS_SOURCE_DIR) + "/tests/data/robots/urdf/" +
           kRobotFiles[static_cast<int>(which)];
}

inline bool isFoot(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("foot") != std::string::npos;
}

// The robot's scene; a legged one on a floor 0.1 m below its lowest foot's origin, which its
// parts touch (not each other: its links' collision shapes overlap at the joints).
inline std::optional<SceneSpec> robot(Robot which, bool bolted, std::string& error) {
    io::RobotImportOptions options;
    options.fixedBase = bolted;
    const auto imported = io::importUrdfFile(robotFile(which), options);
    if (!imported.scene) {
        error = "the robot did not import";
        return std::nullopt;
    }
    SceneSpec spec = *imported.scene;
    if (bolted) return spec;
    double lowest = 0.0;
    for (Part& part : spec.parts) {
        if (isFoot(part.name)) lowest = std::min(lowest, part.X_WP.p.z());
        part.collision.group = 2;  // bit 1: the robot's parts touch the floor, not each other
        part.collision.mask = 1;
    }
    Part floor;
    floor.id = spec.newId();
    floor.name = "floor";
    floor.ground = true;
    Shape plane;
    plane.type = ShapeType::Plane;
    plane.role = ShapeRole::Collision;
    plane.X_PG.p = Vec3(0.0, 0.0, lowest - 0.1);
    floor.shapes.push_back(plane);
    floor.collision.group = 1;
    floor.collision.mask = 2;
    spec.parts.push_back(floor);
    spec.contact.enabled = true;
    return spec;
}

}  // namespace engine::test
