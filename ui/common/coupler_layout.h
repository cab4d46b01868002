#pragma once
// Where a coupler's teeth are, for drawing it (ui/viewport/scene_graph.h) and saying its sizes
// (Properties): the axles of a gear pair and their pitch radii, a pinion's axle and the side of
// it its rack runs on, which part of each joint the gear (rack) is, and the parts a coupler
// turns or slides. Worked out from the scene as the engine's compile does (engine/model/
// model.cpp, compileCoupler): the gears are the parts the two joints do not share, an axle is
// its joint's marker J (z along it), the pitch radii follow from the distance between parallel
// axles at the initial poses (rI + rJ = C external, |rJ − rI| = C internal, rJ = ratio rI),
// the pitch point gear I's pitch radius across its axle toward gear J's (away from a ring J's),
// a rack's across the pinion's axle and the rack's slide, on the rack's side (the engine's
// CouplerModel::pitchRadius and `toward`, where the tooth force acts on a shared carrier).
// No Qt: the off-screen renderer draws couplers too.

#include <vector>

#include "engine/math/spatial.h"
#include "engine/model/scene_spec.h"

namespace ui {

struct CouplerLayout {
    bool drawn = false;  // a gear pair or a rack and pinion whose joints and markers exist
    engine::CouplerType type = engine::CouplerType::Gear;
    bool internal = false;
    double ratio = 1.0;
    // The axles: joint I's and joint J's marker J, by part index (into SceneSpec::parts) and
    // pose in that part. Gear: both gears' axles; rack: the pinion's axle (I) and the rack's
    // slide (J, z along the slide).
    int partI = -1, partJ = -1;
    engine::Transform X_PI, X_PJ;
    // Rack: the rack joint's marker on the rack (its side of the pinion's axle).
    int rackPart = -1;
    engine::Vec3 p_rack = engine::Vec3::Zero();
    // +1 when the gear (the rack) is its joint's part I, −1 when it is part J: the sign of the
    // joint coordinate's (and effort's) sense for it.
    double senseI = 1.0, senseJ = 1.0;
    // Pitch radii [m]: a gear pair's from the axle distance at the initial poses (0: axles not
    // parallel, or on one line); a pinion's is the coupler's radius (radiusJ 0).
    double radiusI = 0.0, radiusJ = 0.0;
    double centreDistance = 0.0;  // gear pair: between the axles, across them [m] (0: unknown)
    // The parts it turns or slides (indices into SceneSpec::parts): the gears, the pinion and
    // the rack, a screw's nut, the moving parts of a linear coupler's joints.
    std::vector<int> parts;
};

CouplerLayout couplerLayout(const engine::SceneSpec& spec, const engine::CouplerSpec& coupler);

// A gear pair or a rack and pinion at part poses X_WP (per SceneSpec part), in world axes.
struct CouplerPose {
    bool valid = false;
    engine::Vec3 axleI = engine::Vec3::Zero(), axleJ = engine::Vec3::Zero();  // points on them
    engine::Vec3 zI = engine::Vec3::UnitZ(), zJ = engine::Vec3::UnitZ();      // unit directions
    // Where the teeth mesh: on the line across the axles, gear I's pitch radius from its axle
    // (a rack: the pinion's pitch radius from its axle, toward the rack).
    engine::Vec3 pitch = engine::Vec3::Zero();
    // Unit, from gear I's axle to the pitch point, across the axle.
    engine::Vec3 out = engine::Vec3::UnitX();
    // The force on gear J (the rack) at the pitch point per newton of the coupler's recorded
    // force (`<name>.force`): gear I's teeth pushing gear J's along the common tangent, or the
    // pinion pushing the rack along its slide.
    engine::Vec3 forceOnJ = engine::Vec3::Zero();
};

CouplerPose couplerPose(const CouplerLayout& layout,
                        const std::vector<engine::Transform>& partPoses);

}  // namespace ui
