#pragma once
// The ghost of the previous run: after Re-run From Here, the parts as they moved in the run
// before, drawn translucent and grey beside the current run until the user discards it. It
// shares the parts' shape nodes with the scene graph (no geometry is copied). No Qt here: the
// off-screen renderer can draw it too.

#include <vector>

#include <osg/Group>
#include <osg/MatrixTransform>
#include <osg/ref_ptr>

#include "engine/math/spatial.h"

namespace ui {

struct SceneGraph;

struct Ghost {
    osg::ref_ptr<osg::Group> root;                          // hidden (node mask 0) until posed
    std::vector<osg::ref_ptr<osg::MatrixTransform>> parts;  // per part, as SceneGraph's
};

// A ghost of the graph's parts (their "shapes" nodes), hidden.
Ghost buildGhost(const SceneGraph& graph);
// Poses the ghost's parts (X_WP per part); an empty list hides it.
void poseGhost(Ghost& ghost, const std::vector<engine::Transform>& partPoses);
bool ghostShown(const Ghost& ghost);

}  // namespace ui
