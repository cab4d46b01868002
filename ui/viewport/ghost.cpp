#include "ui/viewport/ghost.h"

#include <algorithm>

#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/Material>
#include <osg/StateSet>

#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_graph.h"

namespace ui {

Ghost buildGhost(const SceneGraph& graph) {
    Ghost ghost;
    ghost.root = new osg::Group;
    ghost.root->setName("ghost of the previous run");
    ghost.root->setNodeMask(0);
    // One look for every part: pale blue, 40 % opaque, drawn after the opaque scene
    // without writing depth, so the current run shows through and is never hidden by it.
    osg::StateSet* state = ghost.root->getOrCreateStateSet();
    auto material = osg::ref_ptr<osg::Material>(new osg::Material);
    const osg::Vec4 colour(0.45f, 0.6f, 1.0f, 0.4f);
    material->setDiffuse(osg::Material::FRONT_AND_BACK, colour);
    material->setAmbient(osg::Material::FRONT_AND_BACK,
                         osg::Vec4(0.5f * colour.r(), 0.5f * colour.g(), 0.5f * colour.b(), 0.4f));
    material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.2f, 0.2f, 0.2f, 0.4f));
    material->setShininess(osg::Material::FRONT_AND_BACK, 20.0f);
    state->setAttributeAndModes(material, osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    state->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA),
                                osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    state->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false),
                                osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    state->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
    for (const osg::ref_ptr<osg::MatrixTransform>& part : graph.partTransforms) {
        auto transform = osg::ref_ptr<osg::MatrixTransform>(new osg::MatrixTransform);
        transform->setDataVariance(osg::Object::DYNAMIC);
        transform->setMatrix(part->getMatrix());
        // The part's shapes only (not its markers or joint glyphs).
        for (unsigned k = 0; k < part->getNumChildren(); ++k)
            if (part->getChild(k)->getName() == "shapes") transform->addChild(part->getChild(k));
        ghost.root->addChild(transform);
        ghost.parts.push_back(transform);
    }
    return ghost;
}

// Shown, the ghost carries kMaskGhost (scene_graph.h): a bit of its own, so that picking and the
// shadow pass skip it and View ▸ Show Previous Run hides it.
void poseGhost(Ghost& ghost, const std::vector<engine::Transform>& partPoses) {
    if (!ghost.root) return;
    ghost.root->setNodeMask(partPoses.empty() ? 0u : kMaskGhost);
    const std::size_t n = std::min(ghost.parts.size(), partPoses.size());
    for (std::size_t p = 0; p < n; ++p) ghost.parts[p]->setMatrix(toOsg(partPoses[p]));
}

bool ghostShown(const Ghost& ghost) {
    return ghost.root && ghost.root->getNodeMask() != 0u;
}

}  // namespace ui
