#include "ui/viewport/scene_look.h"

#include <string>
#include <utility>

#include <osg/BlendFunc>
#include <osg/CullFace>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Material>
#include <osg/PolygonOffset>
#include <osg/Program>
#include <osg/Texture2D>

#include "ui/viewport/osg_convert.h"

namespace ui::look {
namespace {

template <class T, class... Args>
osg::ref_ptr<T> makeRef(Args&&... args) {
    return osg::ref_ptr<T>(new T(std::forward<Args>(args)...));
}

constexpr int kShadowMapSize = 1024;  // texels per side
constexpr int kShadowUnit = 1;        // texture unit of the shadow map

// The lit shader: per-pixel Blinn-Phong with the OpenGL material of the drawable (so
// highlighting and translucency keep working through osg::Material), the key light
// shadowed through the shadow map with percentage-closer filtering (kShadowLookup).
// GLSL 1.20: Debian's OpenSceneGraph is a fixed-function build, the context a
// compatibility one.
const char* kLitVertex = R"(#version 120
uniform mat4 osg_ViewMatrixInverse;
uniform mat4 motus_shadowMatrix;
uniform float motus_normalOffset;
varying vec3 position_W;
varying vec3 normal_W;
varying vec4 shadowCoord;
void main() {
    vec4 p_E = gl_ModelViewMatrix * gl_Vertex;
    position_W = (osg_ViewMatrixInverse * p_E).xyz;
    normal_W = normalize(mat3(osg_ViewMatrixInverse) * (gl_NormalMatrix * gl_Normal));
    shadowCoord = motus_shadowMatrix * vec4(position_W + motus_normalOffset * normal_W, 1.0);
    gl_Position = ftransform();
}
)";

// How much of the key light reaches a point: 1 lit, 0 in shadow, between at the soft edge.
// Four comparisons a texel off the point each way, each of them bilinear over 2×2 texels.
const char* kShadowLookup = R"(#version 120
uniform sampler2DShadow motus_shadowMap;
uniform float motus_shadowsOn;
uniform float motus_shadowTexel;
varying vec3 position_W;
varying vec4 shadowCoord;
float keyVisible() {
    if (motus_shadowsOn < 0.5) return 1.0;
    vec3 c = shadowCoord.xyz / shadowCoord.w;
    if (c.x <= 0.0 || c.x >= 1.0 || c.y <= 0.0 || c.y >= 1.0 || c.z >= 1.0) return 1.0;
    float d = motus_shadowTexel;
    return 0.25 * (shadow2D(motus_shadowMap, c + vec3(-d, -d, 0.0)).r +
                   shadow2D(motus_shadowMap, c + vec3(d, -d, 0.0)).r +
                   shadow2D(motus_shadowMap, c + vec3(-d, d, 0.0)).r +
                   shadow2D(motus_shadowMap, c + vec3(d, d, 0.0)).r);
}
)";

const char* kLitFragment = R"(
uniform mat4 osg_ViewMatrixInverse;
uniform vec3 motus_keyLight;
varying vec3 normal_W;
void main() {
    vec3 n = normalize(normal_W);
    if (!gl_FrontFacing) n = -n;
    vec3 eye_W = osg_ViewMatrixInverse[3].xyz;
    vec3 v = normalize(eye_W - position_W);
    float key = max(dot(n, motus_keyLight), 0.0);
    float fill = max(dot(n, v), 0.0);
    float visible = key > 0.0 ? keyVisible() : 0.0;
    vec3 h = normalize(motus_keyLight + v);
    float highlight = key > 0.0 ? pow(max(dot(n, h), 0.0), gl_FrontMaterial.shininess) : 0.0;
    vec3 ambient = mix(vec3(0.17, 0.16, 0.15), vec3(0.30, 0.32, 0.35), 0.5 + 0.5 * n.z);
    vec3 color = gl_FrontMaterial.ambient.rgb * ambient +
                 gl_FrontMaterial.diffuse.rgb * (0.68 * key * visible + 0.48 * fill) +
                 gl_FrontMaterial.specular.rgb * 0.9 * highlight * visible +
                 gl_FrontMaterial.emission.rgb;
    gl_FragColor = vec4(color, gl_FrontMaterial.diffuse.a);
}
)";

// The floor: flat and matte, so its colour lit and in shadow is worked out once (makeFloor);
// from 55 % of its half width on it fades into the sky's colour behind it (motus_fade: centre
// x, y, half width). Opaque and cheap on purpose: it covers much of the view.
const char* kFloorFragment = R"(
uniform mat4 osg_ViewMatrixInverse;
uniform vec3 motus_floorLit;
uniform vec3 motus_floorShadowed;
uniform vec3 motus_fade;
void main() {
    vec3 color = mix(motus_floorShadowed, motus_floorLit, keyVisible());
    float fade = smoothstep(0.55 * motus_fade.z, motus_fade.z,
                            length(position_W.xy - motus_fade.xy));
    vec3 sky = skyColor(normalize(position_W - osg_ViewMatrixInverse[3].xyz));
    gl_FragColor = vec4(mix(color, sky, fade), 1.0);
}
)";

// The sky's colour in a direction from the eye (world axes, unit): the haze of the horizon
// below and at it, deepening to blue towards the zenith. The floor fades into the same
// colour, so its edge melts into the horizon.
const char* kSkyColor = R"(
vec3 skyColor(vec3 direction) {
    return mix(vec3(0.86, 0.88, 0.91), vec3(0.40, 0.51, 0.66),
               smoothstep(0.0, 0.8, direction.z));
}
)";

// The sky: a quad covering the view, each corner's direction from the eye found through the
// inverse projection and view.
const char* kSkyVertex = R"(#version 120
uniform mat4 osg_ViewMatrixInverse;
varying vec3 direction_W;
void main() {
    gl_Position = vec4(gl_Vertex.xy, 0.0, 1.0);
    vec4 far_E = gl_ProjectionMatrixInverse * vec4(gl_Vertex.xy, 1.0, 1.0);
    direction_W = mat3(osg_ViewMatrixInverse) * (far_E.xyz / far_E.w);
}
)";
const char* kSkyFragment = R"(
varying vec3 direction_W;
void main() { gl_FragColor = vec4(skyColor(normalize(direction_W)), 1.0); }
)";

// Depth only, for the shadow map.
const char* kDepthVertex = R"(#version 120
void main() { gl_Position = ftransform(); }
)";
const char* kDepthFragment = R"(#version 120
void main() { gl_FragColor = vec4(1.0); }
)";

// A single colour (selection outlines).
const char* kFlatFragment = R"(#version 120
uniform vec4 motus_color;
void main() { gl_FragColor = motus_color; }
)";

}  // namespace

// Lighting, in the world frame (z up). The key light comes from high behind the mechanism on
// the left of the default isometric view, so shadows fall towards the viewer onto floor that
// is seen, and tops read bright; a weaker fill light shines from the viewer (whatever the
// view, the faces it sees are lit); the sky and the floor add a soft ambient (more from above
// than from below).
const osg::Vec3d kKeyLight_W(-0.35, 0.55, 1.0);  // towards the light (normalised on use)

// A part's material: diffuse from its colour, ambient the same colour (the sky and ground
// ambient of the lit shader scale it), a neutral specular highlight.
osg::ref_ptr<osg::Material> makeMaterial(const osg::Vec4& color, float shininess) {
    auto material = makeRef<osg::Material>();
    material->setDiffuse(osg::Material::FRONT_AND_BACK, color);
    material->setAmbient(osg::Material::FRONT_AND_BACK, color);
    material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.3f, 0.3f, 0.3f, 1.0f));
    material->setShininess(osg::Material::FRONT_AND_BACK, shininess);
    return material;
}

osg::ref_ptr<osg::Program> makeProgram(const char* name, const char* vertex,
                                       const std::string& fragment) {
    auto program = makeRef<osg::Program>();
    program->setName(name);
    program->addShader(new osg::Shader(osg::Shader::VERTEX, vertex));
    program->addShader(new osg::Shader(osg::Shader::FRAGMENT, fragment));
    return program;
}

// Lines (triads, grid, coils, arrows) are drawn by the fixed-function pipeline with their
// vertex colours: a program without shaders switches the lit shader off below it.
void drawUnlit(osg::StateSet* state) {
    state->setAttribute(new osg::Program);
    state->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
}

namespace {

osg::ref_ptr<osg::Geode> makeSky(const osg::Vec3& centre) {
    auto vertices = makeRef<osg::Vec3Array>();
    vertices->push_back(osg::Vec3(-1.0f, -1.0f, 0.0f));
    vertices->push_back(osg::Vec3(1.0f, -1.0f, 0.0f));
    vertices->push_back(osg::Vec3(1.0f, 1.0f, 0.0f));
    vertices->push_back(osg::Vec3(-1.0f, 1.0f, 0.0f));
    auto quad = makeRef<osg::Geometry>();
    quad->setVertexArray(vertices);
    quad->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
    // The quad is placed by its shader, not by the camera: its bounds are a point at the
    // mechanism's centre so that the camera's near and far planes ignore it.
    struct AtCentre : osg::Drawable::ComputeBoundingBoxCallback {
        explicit AtCentre(const osg::Vec3& c) : centre(c) {}
        osg::BoundingBox computeBound(const osg::Drawable&) const override {
            return osg::BoundingBox(centre, centre);
        }
        osg::Vec3 centre;
    };
    quad->setComputeBoundingBoxCallback(new AtCentre(centre));
    quad->setCullingActive(false);
    auto geode = makeRef<osg::Geode>();
    geode->setName("sky");
    geode->addDrawable(quad);
    geode->setCullingActive(false);
    geode->setNodeMask(kMaskSky);
    auto* state = geode->getOrCreateStateSet();
    state->setAttribute(makeProgram("motus sky", kSkyVertex,
                                    std::string("#version 120") + kSkyColor + kSkyFragment));
    state->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
    state->setAttributeAndModes(new osg::Depth(osg::Depth::ALWAYS, 0.0, 1.0, false));
    state->setRenderBinDetails(-10, "RenderBin");
    return geode;
}

// The key light's shadow map: a camera looking along the light renders the parts' depth into
// a texture before the frame; the lit shader compares against it. Its orthographic box is
// fixed in the world, centred on the mechanism, `half` metres from its axis to its sides, so
// any camera (the view's, an off-screen renderer's) reads the same map.
osg::ref_ptr<osg::Camera> makeShadowCamera(osg::Node* casters, const osg::Vec3d& centre,
                                           double half, const osg::Vec3d& toLight,
                                           osg::StateSet* receivers) {
    auto depth = makeRef<osg::Texture2D>();
    depth->setTextureSize(kShadowMapSize, kShadowMapSize);
    depth->setInternalFormat(GL_DEPTH_COMPONENT);
    depth->setSourceFormat(GL_DEPTH_COMPONENT);
    depth->setSourceType(GL_FLOAT);
    depth->setShadowComparison(true);
    depth->setShadowCompareFunc(osg::Texture::LEQUAL);
    depth->setShadowTextureMode(osg::Texture::LUMINANCE);
    depth->setFilter(osg::Texture::MIN_FILTER, osg::Texture::LINEAR);
    depth->setFilter(osg::Texture::MAG_FILTER, osg::Texture::LINEAR);
    depth->setWrap(osg::Texture::WRAP_S, osg::Texture::CLAMP_TO_BORDER);
    depth->setWrap(osg::Texture::WRAP_T, osg::Texture::CLAMP_TO_BORDER);
    depth->setBorderColor(osg::Vec4d(1.0, 1.0, 1.0, 1.0));

    auto camera = makeRef<osg::Camera>();
    camera->setName("shadow map");
    camera->setRenderOrder(osg::Camera::PRE_RENDER);
    camera->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
    camera->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER_OBJECT);
    camera->attach(osg::Camera::DEPTH_BUFFER, depth.get());
    camera->setViewport(0, 0, kShadowMapSize, kShadowMapSize);
    camera->setClearMask(GL_DEPTH_BUFFER_BIT);
    camera->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
    camera->setCullMask(kMaskParts);  // parts cast shadows; glyphs, lines and the floor do not
    camera->setCullingActive(false);
    camera->setNodeMask(kMaskShadowPass);
    const osg::Vec3d up = std::abs(toLight.z()) > 0.99 ? osg::Vec3d(0, 1, 0) : osg::Vec3d(0, 0, 1);
    camera->setViewMatrixAsLookAt(centre + toLight * (3.0 * half), centre, up);
    camera->setProjectionMatrixAsOrtho(-half, half, -half, half, 0.5 * half, 5.5 * half);
    camera->addChild(casters);
    auto* state = camera->getOrCreateStateSet();
    state->setAttribute(makeProgram("motus depth", kDepthVertex, kDepthFragment),
                        osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    state->setMode(GL_BLEND, osg::StateAttribute::OFF | osg::StateAttribute::OVERRIDE);
    state->setAttributeAndModes(new osg::PolygonOffset(1.5f, 4.0f),
                                osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);

    // Receivers: world point → shadow map texture coordinates and depth, in [0, 1].
    const osg::Matrixd toTexture = camera->getViewMatrix() * camera->getProjectionMatrix() *
                                   osg::Matrixd::translate(1.0, 1.0, 1.0) *
                                   osg::Matrixd::scale(0.5, 0.5, 0.5);
    receivers->setTextureAttribute(kShadowUnit, depth.get());
    receivers->addUniform(new osg::Uniform("motus_shadowMap", kShadowUnit));
    receivers->addUniform(new osg::Uniform("motus_shadowMatrix", osg::Matrixf(toTexture)));
    receivers->addUniform(new osg::Uniform("motus_shadowTexel", float(1.0 / kShadowMapSize)));
    // Receivers look up the map a texel and a half off their surface, along its normal, so
    // that a surface does not shadow itself.
    receivers->addUniform(
        new osg::Uniform("motus_normalOffset", float(3.0 * half / kShadowMapSize)));
    return camera;
}

}  // namespace

// The floor: a square `half` metres from its centre to its sides at height z, fading into the
// sky from 55 % of that distance on; it receives the shadows of the light towards `toLight`
// and casts none.
osg::ref_ptr<osg::Geode> makeFloor(const osg::Vec3d& centre, double half, double z,
                                   const osg::Vec3d& toLight) {
    const float cx = float(centre.x()), cy = float(centre.y()), h = float(half), zf = float(z);
    auto vertices = makeRef<osg::Vec3Array>();
    vertices->push_back(osg::Vec3(cx - h, cy - h, zf));
    vertices->push_back(osg::Vec3(cx + h, cy - h, zf));
    vertices->push_back(osg::Vec3(cx + h, cy + h, zf));
    vertices->push_back(osg::Vec3(cx - h, cy + h, zf));
    auto normals = makeRef<osg::Vec3Array>();
    normals->push_back(osg::Vec3(0.0f, 0.0f, 1.0f));
    auto quad = makeRef<osg::Geometry>();
    quad->setVertexArray(vertices);
    quad->setNormalArray(normals, osg::Array::BIND_OVERALL);
    quad->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
    auto geode = makeRef<osg::Geode>();
    geode->setName("floor");
    geode->addDrawable(quad);
    geode->setNodeMask(kMaskFloor);
    auto* state = geode->getOrCreateStateSet();
    state->setAttribute(makeProgram("motus floor", kLitVertex,
                                    std::string(kShadowLookup) + kSkyColor + kFloorFragment));
    // The lit shader's terms for an upward face seen from about 30° above: ambient from the
    // sky, the key light (when it reaches), the fill light from the viewer.
    const osg::Vec3 albedo(0.80f, 0.80f, 0.78f);
    const float ambient = 0.31f, fill = 0.48f * 0.5f, key = 0.68f * float(toLight.z());
    state->addUniform(new osg::Uniform("motus_floorLit", albedo * (ambient + fill + key)));
    state->addUniform(new osg::Uniform("motus_floorShadowed", albedo * (ambient + fill)));
    state->addUniform(new osg::Uniform("motus_fade", osg::Vec3(cx, cy, h)));
    // A backdrop: drawn after the sky and before the parts, writing no depth, so that a part
    // that swings below it (a hanging chain, a pendulum) is still seen, over the floor, instead
    // of vanishing under it. The grid lines, drawn after the parts, lie over it.
    state->setRenderBinDetails(-5, "RenderBin");
    state->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
    return geode;
}

osg::ref_ptr<osg::Program> makeOutlineProgram() {
    return makeProgram("motus outline", kDepthVertex, kFlatFragment);
}

void applyLook(SceneGraph& g, const osg::Vec3d& centre, double size) {
    // The look: everything below the root is lit by the key and fill lights through the lit
    // shader (lines switch it off), with the key light's shadows; the sky is drawn first.
    osg::StateSet* look = g.root->getOrCreateStateSet();
    look->setAttribute(
        makeProgram("motus lit", kLitVertex, std::string(kShadowLookup) + kLitFragment));
    osg::Vec3d key = kKeyLight_W;
    key.normalize();
    g.keyLight_W = key;
    look->addUniform(new osg::Uniform("motus_keyLight", osg::Vec3f(key)));
    g.shadowsOn = new osg::Uniform("motus_shadowsOn", 1.0f);
    look->addUniform(g.shadowsOn);
    // The shadow map covers where the parts can be seen casting onto the floor: the floor's
    // square around the mechanism.
    g.shadowCamera = makeShadowCamera(g.mechanism.get(), centre, 1.5 * size, key, look);
    g.root->insertChild(0, g.shadowCamera);
    g.root->insertChild(0, makeSky(osg::Vec3(centre)));
}

}  // namespace ui::look
