#pragma once
// The look of the scene graph that does not depend on the view (scene_graph.h): the key and
// fill lights of the lit shader (GLSL 1.20: Debian's OpenSceneGraph is a fixed-function build,
// the context a compatibility one), parts' materials, the key light's shadow map, the sky
// gradient and the floor fading into it. Qt-free, in motus_render.

#include <osg/Camera>
#include <osg/Geode>
#include <osg/Material>
#include <osg/Program>
#include <osg/StateSet>
#include <osg/Vec3d>
#include <osg/Vec4>

#include "ui/viewport/scene_graph.h"

namespace ui::look {

// Towards the key light, in the world frame (z up; normalised on use).
extern const osg::Vec3d kKeyLight_W;

// A part's material: diffuse from its colour, ambient the same colour (the sky and ground
// ambient of the lit shader scale it), a neutral specular highlight.
osg::ref_ptr<osg::Material> makeMaterial(const osg::Vec4& color, float shininess = 40.0f);
osg::ref_ptr<osg::Program> makeProgram(const char* name, const char* vertex,
                                       const std::string& fragment);
// Lines are drawn by the fixed-function pipeline with their vertex colours.
void drawUnlit(osg::StateSet* state);
// The selection outline's program: depth-tested flat colour.
osg::ref_ptr<osg::Program> makeOutlineProgram();
// The floor: a square `half` metres from its centre to its sides at height z, fading into the
// sky; it receives the shadows of the light towards `toLight` and casts none.
osg::ref_ptr<osg::Geode> makeFloor(const osg::Vec3d& centre, double half, double z,
                                   const osg::Vec3d& toLight);
// Lights, shadows and sky on `g` (built around `centre`, `size` across).
void applyLook(SceneGraph& g, const osg::Vec3d& centre, double size);

}  // namespace ui::look
