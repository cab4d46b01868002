#include "engine/import/step_import.h"

#include <BRepAdaptor_Surface.hxx>
#include <BRepBndLib.hxx>
#include <BRepBuilderAPI_Transform.hxx>
#include <BRepGProp.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Tool.hxx>
#include <Bnd_Box.hxx>
#include <GProp_GProps.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <Interface_Static.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_Printer.hxx>
#include <Poly_Triangulation.hxx>
#include <Quantity_Color.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <Standard_Failure.hxx>
#include <TDF_Label.hxx>
#include <TDF_LabelSequence.hxx>
#include <TDataStd_Name.hxx>
#include <TDataStd_TreeNode.hxx>
#include <TDocStd_Document.hxx>
#include <TopExp_Explorer.hxx>
#include <TopLoc_Location.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Shape.hxx>
#include <TopoDS_Solid.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc.hxx>
#include <XCAFDoc_ColorTool.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_Material.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <gp_Quaternion.hxx>
#include <gp_Trsf.hxx>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>

#include "engine/import/import_reporter.h"
#include "engine/math/constants.h"

namespace engine::io {
namespace {

using nlohmann::json;

// Assemblies nested deeper than this are refused (a file that nests without end).
constexpr int kMaxDepth = 64;
// A solid enclosing less than this is no solid (an open shell read as one) [m³].
constexpr double kLeastVolume = 1e-15;
// Relative tolerance of the primitive tests: a solid is a box, cylinder or sphere when its
// faces are of those surfaces and its volume is the primitive's to this.
constexpr double kPrimitiveTolerance = 1e-9;

// What the reader (in its child process) hands back: the parts as Motus will have them, and the
// warnings, as plain data.
struct ReadShape {
    ShapeType type = ShapeType::Mesh;
    Transform X_PG;
    Vec3 size = Vec3::Zero();
    double radius = 0.0, length = 0.0;
    TriangleMesh mesh;
};

struct ReadPart {
    std::string name;
    std::string productName;  // from the product tree (not yet sanitised or unique)
    std::string place;        // its path in the tree, for messages ("arm/pin")
    std::optional<std::uint32_t> color;
    Transform X_WP;
    double mass = 0.0;
    Vec3 p_PPcm = Vec3::Zero();
    Mat3 I_Pcm_P = Mat3::Zero();
    std::vector<ReadShape> shapes;
    std::vector<CadFeature> features;  // in P
};

struct ReadAssembly {
    std::vector<ReadPart> parts;
    std::vector<std::pair<std::string, std::string>> warnings;  // (where, message)
    CadImportStatistics statistics;
};

std::string utf8(const TCollection_ExtendedString& text) {
    return TCollection_AsciiString(text).ToCString();  // (no replacement character: UTF-8)
}

Vec3 toVec3(const gp_XYZ& v) {
    return {v.X(), v.Y(), v.Z()};
}

// OpenCASCADE's messages: not printed (the command line's output may be the scene itself), the
// first few failures kept to say why a file could not be read.
class FailureCollector final : public Message_Printer {
public:
    std::string text() const {
        std::string out;
        for (const std::string& line : lines_) out += (out.empty() ? "" : "; ") + line;
        return out;
    }

protected:
    void send(const TCollection_AsciiString& text, const Message_Gravity gravity) const override {
        if (gravity < Message_Alarm || lines_.size() >= 3) return;
        std::string line = text.ToCString();
        while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
        while (!line.empty() && (line.front() == '*' || line.front() == ' ')) line.erase(0, 1);
        while (!line.empty() && (line.back() == '*' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) lines_.push_back(excerpt(line, 200));
    }

private:
    mutable std::vector<std::string> lines_;
};

// The reading itself, in the child process.
class Reader {
public:
    Reader(const CadImportOptions& options, ReadAssembly& out) : options_(options), out_(out) {}

    // False with `error` when the file cannot be read at all.
    bool read(const std::string& path, std::string& error) {
        const Handle(Message_Messenger)& messenger = Message::DefaultMessenger();
        messenger->ChangePrinters().Clear();
        Handle(FailureCollector) failures = new FailureCollector;
        messenger->AddPrinter(failures);
        const auto why = [&failures] {
            const std::string text = failures->text();
            return text.empty() ? std::string() : " (" + text + ")";
        };
        Handle(XCAFApp_Application) application = XCAFApp_Application::GetApplication();
        Handle(TDocStd_Document) document;
        application->NewDocument("MDTV-XCAF", document);
        STEPCAFControl_Reader reader;
        reader.SetColorMode(true);
        reader.SetNameMode(true);
        reader.SetMatMode(true);
        reader.SetLayerMode(false);
        // Lengths in metres, whatever the file's unit.
        Interface_Static::SetCVal("xstep.cascade.unit", "M");
        if (reader.ReadFile(path.c_str()) != IFSelect_RetDone) {
            error = "not a STEP file OpenCASCADE can read" + why();
            return false;
        }
        if (!reader.Transfer(document)) {
            error = "the file holds no shape OpenCASCADE can transfer" + why();
            return false;
        }
        shapes_ = XCAFDoc_DocumentTool::ShapeTool(document->Main());
        colors_ = XCAFDoc_DocumentTool::ColorTool(document->Main());
        TDF_LabelSequence roots;
        shapes_->GetFreeShapes(roots);
        for (int k = 1; k <= roots.Length(); ++k) {
            const TDF_Label& root = roots.Value(k);
            if (!visit(root, root, TopLoc_Location(), "", 0, error)) return false;
        }
        if (out_.parts.empty()) {
            error = out_.statistics.solids == 0
                        ? "the file holds no solid (only surfaces, curves or points): Motus "
                          "needs solids for the parts' mass"
                        : "no solid of the file encloses a volume";
            return false;
        }
        return true;
    }

private:
    // A label's name from the file; instances without one of their own take their product's.
    static std::string nameOf(const TDF_Label& label) {
        Handle(TDataStd_Name) name;
        if (!label.FindAttribute(TDataStd_Name::GetID(), name)) return {};
        std::string text = utf8(name->Get());
        if (text.rfind("=>", 0) == 0) return {};  // (XDE's name for an unnamed instance)
        return text;
    }

    std::optional<std::uint32_t> colorOf(const TDF_Label& instance, const TDF_Label& product,
                                         const TopoDS_Shape& shape) const {
        Quantity_Color color;
        auto found = [&](const TDF_Label& label) {
            return colors_->GetColor(label, XCAFDoc_ColorSurf, color) ||
                   colors_->GetColor(label, XCAFDoc_ColorGen, color);
        };
        bool have = found(instance) || found(product);
        for (TopExp_Explorer e(shape, TopAbs_SOLID); !have && e.More(); e.Next())
            have = colors_->GetColor(e.Current(), XCAFDoc_ColorSurf, color) ||
                   colors_->GetColor(e.Current(), XCAFDoc_ColorGen, color);
        for (TopExp_Explorer e(shape, TopAbs_FACE); !have && e.More(); e.Next())
            have = colors_->GetColor(e.Current(), XCAFDoc_ColorSurf, color);
        if (!have) return std::nullopt;
        double r = 0, g = 0, b = 0;
        color.Values(r, g, b, Quantity_TOC_sRGB);
        auto byte = [](double x) {
            return static_cast<std::uint32_t>(std::lround(std::clamp(x, 0.0, 1.0) * 255.0));
        };
        return byte(r) << 16 | byte(g) << 8 | byte(b);
    }

    // The density of a label's material [kg/m³], or 0 when it has none.
    static double densityOf(const TDF_Label& label) {
        Handle(TDataStd_TreeNode) node;
        if (!label.FindAttribute(XCAFDoc::MaterialRefGUID(), node) || !node->HasFather())
            return 0.0;
        Handle(XCAFDoc_Material) material;
        if (!node->Father()->Label().FindAttribute(XCAFDoc_Material::GetID(), material)) return 0.0;
        return material->GetDensity() * 1000.0;  // (XDE keeps g/cm³)
    }

    bool rigid(const std::string& name) const {
        return !name.empty() &&
               std::find(options_.rigidAssemblies.begin(), options_.rigidAssemblies.end(), name) !=
                   options_.rigidAssemblies.end();
    }

    // A product (`product`, reached through `instance`) placed at `location` in the world.
    bool visit(const TDF_Label& instance, const TDF_Label& product, const TopLoc_Location& location,
               const std::string& parent, int depth, std::string& error) {
        if (depth > kMaxDepth) {
            error = "the assembly nests deeper than " + std::to_string(kMaxDepth) +
                    " levels (at '" + excerpt(parent) + "')";
            return false;
        }
        std::string name = nameOf(instance);
        if (name.empty()) name = nameOf(product);
        if (name.empty()) name = "component";
        const std::string place = parent.empty() ? name : parent + "/" + name;
        if (XCAFDoc_ShapeTool::IsAssembly(product) && !(rigid(name) || rigid(nameOf(product)))) {
            TDF_LabelSequence components;
            XCAFDoc_ShapeTool::GetComponents(product, components, false);
            for (int k = 1; k <= components.Length(); ++k) {
                const TDF_Label& component = components.Value(k);
                TDF_Label referred;
                if (!XCAFDoc_ShapeTool::GetReferredShape(component, referred)) continue;
                const TopLoc_Location at = location * XCAFDoc_ShapeTool::GetLocation(component);
                if (!visit(component, referred, at, place, depth + 1, error)) return false;
            }
            return true;
        }
        // A leaf (or a sub-assembly kept rigid): its solids, in its own frame.
        ++out_.statistics.components;
        const TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape(product);
        double density = densityOf(instance);
        if (density <= 0.0) density = densityOf(product);
        if (density <= 0.0) density = options_.defaultDensity;
        std::vector<TopoDS_Solid> solids;
        for (TopExp_Explorer e(shape, TopAbs_SOLID); e.More(); e.Next())
            solids.push_back(TopoDS::Solid(e.Current()));
        for (TopExp_Explorer e(shape, TopAbs_FACE); e.More(); e.Next()) ++out_.statistics.faces;
        out_.statistics.solids += static_cast<int>(solids.size());
        if (solids.empty()) {
            out_.warnings.push_back(
                {"component '" + excerpt(place) + "'",
                 "has no solid (surfaces only, or a shell that does not close): left out, as it "
                 "has no volume for its mass"});
            return true;
        }
        const auto color = colorOf(instance, product, shape);
        productName_ = nameOf(product);
        // The part frame: the component's placement when it is a rigid motion; a placement that
        // scales or mirrors is applied to the solids instead, the part frame then the world's.
        gp_Trsf placement = location.Transformation();
        Transform X_WP;
        if (std::abs(placement.ScaleFactor() - 1.0) > 1e-12 || placement.IsNegative()) {
            for (TopoDS_Solid& solid : solids)
                solid = TopoDS::Solid(BRepBuilderAPI_Transform(solid, placement, true).Shape());
            out_.warnings.push_back({"component '" + excerpt(place) + "'",
                                     "placed by a transformation that scales or mirrors: its "
                                     "solids transformed, its part frame the world's"});
        } else {
            const gp_Quaternion q = placement.GetRotation();
            X_WP.R = Quat(q.W(), q.X(), q.Y(), q.Z()).normalized();
            X_WP.p = toVec3(placement.TranslationPart());
        }
        if (options_.grouping == CadGrouping::Solid && solids.size() > 1) {
            for (std::size_t k = 0; k < solids.size(); ++k)
                addPart(name + "_" + std::to_string(k + 1),
                        place + " (solid " + std::to_string(k + 1) + ")", color, X_WP, {solids[k]},
                        density);
        } else {
            addPart(name, place, color, X_WP, solids, density);
        }
        return true;
    }

    // One part of `solids` (in the part frame) at `density`. False when it has no volume.
    bool addPart(const std::string& name, const std::string& place,
                 const std::optional<std::uint32_t>& color, const Transform& X_WP,
                 const std::vector<TopoDS_Solid>& solids, double density) {
        GProp_GProps total;
        std::vector<TopoDS_Solid> kept;
        std::vector<GProp_GProps> volumes;  // of each solid kept, at unit density
        for (const TopoDS_Solid& solid : solids) {
            bool open = false;  // a shell with an edge on one face only: it encloses nothing
            for (TopExp_Explorer e(solid, TopAbs_SHELL); e.More() && !open; e.Next())
                open = !BRep_Tool::IsClosed(e.Current());
            if (open) {
                out_.warnings.push_back(
                    {"component '" + excerpt(place) + "'",
                     "a solid of it is bounded by an open shell (a face missing): it encloses no "
                     "volume, left out"});
                continue;
            }
            GProp_GProps props;
            BRepGProp::VolumeProperties(solid, props);
            if (!(std::abs(props.Mass()) > kLeastVolume)) {
                out_.warnings.push_back(
                    {"component '" + excerpt(place) + "'",
                     "a solid of it encloses no volume (an open shell?): left out"});
                continue;
            }
            if (props.Mass() < 0.0) {  // (a solid turned inside out: its faces reversed)
                const TopoDS_Solid reversed = TopoDS::Solid(solid.Reversed());
                props = GProp_GProps();
                BRepGProp::VolumeProperties(reversed, props);
                kept.push_back(reversed);
            } else {
                kept.push_back(solid);
            }
            volumes.push_back(props);
            total.Add(props, density);
        }
        if (kept.empty()) {
            out_.warnings.push_back(
                {"component '" + excerpt(place) + "'",
                 "no solid of it encloses a volume: the component is left out"});
            return false;
        }
        ReadPart part;
        part.name = name;
        part.productName = productName_;
        part.place = place;
        part.color = color;
        part.X_WP = X_WP;
        part.mass = total.Mass();
        part.p_PPcm = toVec3(total.CentreOfMass().XYZ());
        const gp_Mat I = total.MatrixOfInertia();
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) part.I_Pcm_P(r, c) = I.Value(r + 1, c + 1);
        part.I_Pcm_P = 0.5 * (part.I_Pcm_P + part.I_Pcm_P.transpose()).eval();
        // Each solid an exact primitive when it is one; the others drawn as one tessellation.
        TriangleMesh mesh;
        for (std::size_t k = 0; k < kept.size(); ++k) {
            const TopoDS_Solid& solid = kept[k];
            featuresOf(solid, part.features);
            if (std::optional<ReadShape> primitive = primitiveOf(solid, volumes[k])) {
                part.shapes.push_back(std::move(*primitive));
                continue;
            }
            tessellate(solid, mesh);
        }
        if (!mesh.empty()) {
            out_.statistics.triangles += mesh.triangles.size();
            ReadShape drawn;
            drawn.type = ShapeType::Mesh;
            drawn.mesh = std::move(mesh);
            part.shapes.push_back(std::move(drawn));
        }
        out_.parts.push_back(std::move(part));
        return true;
    }

    // The solid as a box, cylinder or sphere, when it is exactly one; `props` its volume
    // properties.
    static std::optional<ReadShape> primitiveOf(const TopoDS_Solid& solid,
                                                const GProp_GProps& props) {
        std::vector<BRepAdaptor_Surface> faces;
        for (TopExp_Explorer e(solid, TopAbs_FACE); e.More(); e.Next())
            faces.emplace_back(TopoDS::Face(e.Current()));
        std::vector<Vec3> vertices;
        for (TopExp_Explorer e(solid, TopAbs_VERTEX); e.More(); e.Next())
            vertices.push_back(toVec3(BRep_Tool::Pnt(TopoDS::Vertex(e.Current())).XYZ()));
        const double volume = std::abs(props.Mass());
        const Vec3 centre = toVec3(props.CentreOfMass().XYZ());
        const auto same = [&](double v) {
            return std::abs(v - volume) <= kPrimitiveTolerance * volume;
        };
        const auto extent = [&](const Vec3& axis) {
            double lo = INFINITY, hi = -INFINITY;
            for (const Vec3& v : vertices) {
                lo = std::min(lo, v.dot(axis));
                hi = std::max(hi, v.dot(axis));
            }
            return hi - lo;
        };
        const auto count = [&](GeomAbs_SurfaceType type) {
            return std::count_if(faces.begin(), faces.end(), [type](const BRepAdaptor_Surface& f) {
                return f.GetType() == type;
            });
        };
        const auto direction = [](const gp_Dir& d) { return Vec3(d.X(), d.Y(), d.Z()); };
        ReadShape shape;
        shape.X_PG.p = centre;
        if (faces.size() == 6 && count(GeomAbs_Plane) == 6) {
            std::vector<Vec3> axes;
            for (const BRepAdaptor_Surface& f : faces) {
                const Vec3 n = direction(f.Plane().Axis().Direction());
                if (std::none_of(axes.begin(), axes.end(),
                                 [&](const Vec3& a) { return std::abs(a.dot(n)) > 1.0 - 1e-12; }))
                    axes.push_back(n);
            }
            if (axes.size() != 3 || std::abs(axes[0].dot(axes[1])) > 1e-12 ||
                std::abs(axes[0].dot(axes[2])) > 1e-12 || std::abs(axes[1].dot(axes[2])) > 1e-12)
                return std::nullopt;
            Mat3 R;
            R.col(0) = axes[0];
            R.col(1) = axes[1];
            R.col(2) = axes[0].cross(axes[1]);
            shape.size = Vec3(extent(R.col(0)), extent(R.col(1)), extent(R.col(2)));
            if (!same(shape.size.prod())) return std::nullopt;
            shape.type = ShapeType::Box;
            shape.X_PG.R = Quat(R).normalized();
            return shape;
        }
        const long cylinders = count(GeomAbs_Cylinder), planes = count(GeomAbs_Plane);
        if (cylinders >= 1 && planes == 2 &&
            cylinders + planes == static_cast<long>(faces.size())) {
            const gp_Cylinder first = faces[0].GetType() == GeomAbs_Cylinder
                                          ? faces[0].Cylinder()
                                          : std::find_if(faces.begin(), faces.end(), [](auto& f) {
                                                return f.GetType() == GeomAbs_Cylinder;
                                            })->Cylinder();
            const Vec3 axis = direction(first.Axis().Direction());
            const double radius = first.Radius();
            for (const BRepAdaptor_Surface& f : faces) {
                if (f.GetType() == GeomAbs_Cylinder) {
                    const gp_Cylinder c = f.Cylinder();
                    const Vec3 a = direction(c.Axis().Direction());
                    const Vec3 offset = toVec3(c.Location().XYZ() - first.Location().XYZ());
                    if (std::abs(c.Radius() - radius) > kPrimitiveTolerance * radius ||
                        std::abs(std::abs(a.dot(axis)) - 1.0) > 1e-12 ||
                        offset.cross(axis).norm() > kPrimitiveTolerance * radius)
                        return std::nullopt;
                } else if (std::abs(std::abs(direction(f.Plane().Axis().Direction()).dot(axis)) -
                                    1.0) > 1e-12) {
                    return std::nullopt;
                }
            }
            shape.length = extent(axis);
            shape.radius = radius;
            if (!same(kPi * radius * radius * shape.length)) return std::nullopt;
            shape.type = ShapeType::Cylinder;
            shape.X_PG.R = Quat::FromTwoVectors(Vec3::UnitZ(), axis).normalized();
            return shape;
        }
        if (!faces.empty() && count(GeomAbs_Sphere) == static_cast<long>(faces.size())) {
            const gp_Sphere first = faces[0].Sphere();
            for (const BRepAdaptor_Surface& f : faces)
                if (std::abs(f.Sphere().Radius() - first.Radius()) >
                        kPrimitiveTolerance * first.Radius() ||
                    f.Sphere().Location().Distance(first.Location()) >
                        kPrimitiveTolerance * first.Radius())
                    return std::nullopt;
            shape.radius = first.Radius();
            if (!same(4.0 / 3.0 * kPi * std::pow(shape.radius, 3))) return std::nullopt;
            shape.type = ShapeType::Sphere;
            return shape;
        }
        return std::nullopt;
    }

    // The solid's faces as triangles appended to `mesh` (outward, counter-clockwise).
    void tessellate(const TopoDS_Solid& solid, TriangleMesh& mesh) const {
        double deflection = options_.linearDeflection;
        if (!(deflection > 0.0)) {
            Bnd_Box box;
            BRepBndLib::Add(solid, box);
            deflection = box.IsVoid() ? 1e-3 : std::max(1e-6, 2e-3 * std::sqrt(box.SquareExtent()));
        }
        BRepMesh_IncrementalMesh mesher(solid, deflection, false, options_.angularDeflection,
                                        false);
        for (TopExp_Explorer e(solid, TopAbs_FACE); e.More(); e.Next()) {
            const TopoDS_Face& face = TopoDS::Face(e.Current());
            TopLoc_Location at;
            const Handle(Poly_Triangulation) triangles = BRep_Tool::Triangulation(face, at);
            if (triangles.IsNull()) continue;
            const gp_Trsf X = at.Transformation();
            const int base = static_cast<int>(mesh.vertices.size());
            for (int k = 1; k <= triangles->NbNodes(); ++k)
                mesh.vertices.push_back(toVec3(triangles->Node(k).Transformed(X).XYZ()));
            const bool reversed = face.Orientation() == TopAbs_REVERSED;
            for (int k = 1; k <= triangles->NbTriangles(); ++k) {
                int a = 0, b = 0, c = 0;
                triangles->Triangle(k).Get(a, b, c);
                if (reversed) std::swap(b, c);
                mesh.triangles.push_back({base + a - 1, base + b - 1, base + c - 1});
            }
        }
    }

    // The solid's planar, cylindrical and spherical faces, for joint suggestions.
    static void featuresOf(const TopoDS_Solid& solid, std::vector<CadFeature>& out) {
        for (TopExp_Explorer e(solid, TopAbs_FACE); e.More(); e.Next()) {
            const TopoDS_Face& face = TopoDS::Face(e.Current());
            const BRepAdaptor_Surface surface(face);
            const GeomAbs_SurfaceType type = surface.GetType();
            if (type != GeomAbs_Plane && type != GeomAbs_Cylinder && type != GeomAbs_Sphere)
                continue;
            // The outward normal (out of the material) at the middle of the face's parameters.
            const double u = 0.5 * (surface.FirstUParameter() + surface.LastUParameter());
            const double v = 0.5 * (surface.FirstVParameter() + surface.LastVParameter());
            gp_Pnt at;
            gp_Vec du, dv;
            surface.D1(u, v, at, du, dv);
            gp_Vec normal = du.Crossed(dv);
            if (normal.Magnitude() < 1e-300) continue;
            normal.Normalize();
            if (face.Orientation() == TopAbs_REVERSED) normal.Reverse();
            GProp_GProps props;
            BRepGProp::SurfaceProperties(face, props);
            CadFeature f;
            f.area = props.Mass();
            std::vector<Vec3> vertices;
            for (TopExp_Explorer ve(face, TopAbs_VERTEX); ve.More(); ve.Next())
                vertices.push_back(toVec3(BRep_Tool::Pnt(TopoDS::Vertex(ve.Current())).XYZ()));
            const Vec3 n = toVec3(normal.XYZ());
            if (type == GeomAbs_Plane) {
                f.kind = CadFeature::Kind::Plane;
                f.point = toVec3(props.CentreOfMass().XYZ());
                f.direction = n;
                for (const Vec3& p : vertices) f.radius = std::max(f.radius, (p - f.point).norm());
            } else if (type == GeomAbs_Cylinder) {
                const gp_Cylinder c = surface.Cylinder();
                f.kind = CadFeature::Kind::Cylinder;
                const Vec3 axis = toVec3(c.Axis().Direction().XYZ());
                const Vec3 origin = toVec3(c.Location().XYZ());
                f.direction = axis;
                f.radius = c.Radius();
                // The face's extent along the axis, from its vertices and its middle.
                double lo = (toVec3(at.XYZ()) - origin).dot(axis), hi = lo;
                for (const Vec3& p : vertices) {
                    lo = std::min(lo, (p - origin).dot(axis));
                    hi = std::max(hi, (p - origin).dot(axis));
                }
                f.point = origin + lo * axis;
                f.length = hi - lo;
                const Vec3 radial =
                    toVec3(at.XYZ()) - (origin + (toVec3(at.XYZ()) - origin).dot(axis) * axis);
                f.convex = n.dot(radial) > 0.0;
            } else {
                const gp_Sphere sphere = surface.Sphere();
                f.kind = CadFeature::Kind::Sphere;
                f.point = toVec3(sphere.Location().XYZ());
                f.radius = sphere.Radius();
                f.convex = n.dot(toVec3(at.XYZ()) - f.point) > 0.0;
            }
            out.push_back(f);
        }
    }

    const CadImportOptions& options_;
    ReadAssembly& out_;
    std::string productName_;  // of the component being read
    Handle(XCAFDoc_ShapeTool) shapes_;
    Handle(XCAFDoc_ColorTool) colors_;
};

// ---- the child's answer as bytes (CBOR: doubles exact) ----

json transformJson(const Transform& X) {
    return json::array({X.R.w(), X.R.x(), X.R.y(), X.R.z(), X.p.x(), X.p.y(), X.p.z()});
}

Transform transformFrom(const json& j) {
    Transform X;
    X.R = Quat(j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(),
               j.at(3).get<double>());
    X.p = Vec3(j.at(4).get<double>(), j.at(5).get<double>(), j.at(6).get<double>());
    return X;
}

std::string encode(const ReadAssembly& assembly) {
    json parts = json::array();
    for (const ReadPart& part : assembly.parts) {
        json shapes = json::array();
        for (const ReadShape& s : part.shapes) {
            std::vector<double> vertices;
            vertices.reserve(3 * s.mesh.vertices.size());
            for (const Vec3& v : s.mesh.vertices)
                vertices.insert(vertices.end(), {v.x(), v.y(), v.z()});
            std::vector<int> triangles;
            triangles.reserve(3 * s.mesh.triangles.size());
            for (const auto& t : s.mesh.triangles)
                triangles.insert(triangles.end(), t.begin(), t.end());
            shapes.push_back({{"type", static_cast<int>(s.type)},
                              {"X", transformJson(s.X_PG)},
                              {"size", {s.size.x(), s.size.y(), s.size.z()}},
                              {"radius", s.radius},
                              {"length", s.length},
                              {"vertices", vertices},
                              {"triangles", triangles}});
        }
        json features = json::array();
        for (const CadFeature& f : part.features)
            features.push_back({static_cast<int>(f.kind), f.point.x(), f.point.y(), f.point.z(),
                                f.direction.x(), f.direction.y(), f.direction.z(), f.radius,
                                f.length, f.convex, f.area});
        std::vector<double> inertia(part.I_Pcm_P.data(), part.I_Pcm_P.data() + 9);
        parts.push_back({{"name", part.name},
                         {"place", part.place},
                         {"color", part.color ? json(*part.color) : json()},
                         {"X", transformJson(part.X_WP)},
                         {"mass", part.mass},
                         {"com", {part.p_PPcm.x(), part.p_PPcm.y(), part.p_PPcm.z()}},
                         {"inertia", inertia},
                         {"shapes", shapes},
                         {"features", features},
                         {"product", part.productName}});
    }
    json warnings = json::array();
    for (const auto& [where, message] : assembly.warnings) warnings.push_back({where, message});
    const CadImportStatistics& s = assembly.statistics;
    const json j = {
        {"parts", parts},
        {"warnings", warnings},
        {"statistics", {s.components, s.solids, s.faces, static_cast<double>(s.triangles)}}};
    const std::vector<std::uint8_t> bytes = json::to_cbor(j);
    return std::string(bytes.begin(), bytes.end());
}

ReadAssembly decode(const std::string& bytes) {
    const json j = json::from_cbor(bytes);
    ReadAssembly assembly;
    for (const json& p : j.at("parts")) {
        ReadPart part;
        part.name = p.at("name").get<std::string>();
        part.place = p.at("place").get<std::string>();
        if (!p.at("color").is_null()) part.color = p.at("color").get<std::uint32_t>();
        part.X_WP = transformFrom(p.at("X"));
        part.mass = p.at("mass").get<double>();
        const auto com = p.at("com").get<std::vector<double>>();
        part.p_PPcm = Vec3(com.at(0), com.at(1), com.at(2));
        const auto inertia = p.at("inertia").get<std::vector<double>>();
        for (int k = 0; k < 9; ++k)
            part.I_Pcm_P.data()[k] = inertia.at(static_cast<std::size_t>(k));
        part.productName = p.at("product").get<std::string>();
        for (const json& f : p.at("features")) {
            CadFeature feature;
            feature.kind = static_cast<CadFeature::Kind>(f.at(0).get<int>());
            feature.point =
                Vec3(f.at(1).get<double>(), f.at(2).get<double>(), f.at(3).get<double>());
            feature.direction =
                Vec3(f.at(4).get<double>(), f.at(5).get<double>(), f.at(6).get<double>());
            feature.radius = f.at(7).get<double>();
            feature.length = f.at(8).get<double>();
            feature.convex = f.at(9).get<bool>();
            feature.area = f.at(10).get<double>();
            part.features.push_back(feature);
        }
        for (const json& s : p.at("shapes")) {
            ReadShape shape;
            shape.type = static_cast<ShapeType>(s.at("type").get<int>());
            shape.X_PG = transformFrom(s.at("X"));
            const auto size = s.at("size").get<std::vector<double>>();
            shape.size = Vec3(size.at(0), size.at(1), size.at(2));
            shape.radius = s.at("radius").get<double>();
            shape.length = s.at("length").get<double>();
            const auto vertices = s.at("vertices").get<std::vector<double>>();
            const auto triangles = s.at("triangles").get<std::vector<int>>();
            for (std::size_t k = 0; k + 2 < vertices.size(); k += 3)
                shape.mesh.vertices.emplace_back(vertices[k], vertices[k + 1], vertices[k + 2]);
            for (std::size_t k = 0; k + 2 < triangles.size(); k += 3)
                shape.mesh.triangles.push_back({triangles[k], triangles[k + 1], triangles[k + 2]});
            part.shapes.push_back(std::move(shape));
        }
        assembly.parts.push_back(std::move(part));
    }
    for (const json& w : j.at("warnings"))
        assembly.warnings.emplace_back(w.at(0).get<std::string>(), w.at(1).get<std::string>());
    const json& s = j.at("statistics");
    assembly.statistics.components = s.at(0).get<int>();
    assembly.statistics.solids = s.at(1).get<int>();
    assembly.statistics.faces = s.at(2).get<int>();
    assembly.statistics.triangles = static_cast<std::size_t>(s.at(3).get<double>());
    return assembly;
}

// The parts read as a scene: a ground, then each part named uniquely.
// The parts read as a scene: the ground (the ground component, else one without shapes), then
// each part named uniquely; `features[p]` the faces of spec.parts[p]. Nullopt when the ground
// component is not in the file.
std::optional<SceneSpec> sceneOf(ReadAssembly& assembly, const std::string& path,
                                 const std::string& groundComponent,
                                 std::vector<std::vector<CadFeature>>& features) {
    SceneSpec spec;
    spec.name = sanitize(std::filesystem::path(path).stem().string());
    spec.description = "Imported from " + std::filesystem::path(path).filename().string();
    const auto isGround = [&groundComponent](const ReadPart& read) {
        return !groundComponent.empty() &&
               (read.name == groundComponent || read.productName == groundComponent ||
                sanitize(read.name) == groundComponent);
    };
    const auto ground = std::find_if(assembly.parts.begin(), assembly.parts.end(), isGround);
    if (!groundComponent.empty() && ground == assembly.parts.end()) return std::nullopt;
    if (ground != assembly.parts.begin() && ground != assembly.parts.end())
        std::rotate(assembly.parts.begin(), ground, ground + 1);  // (the ground first)
    std::set<std::string> taken;
    features.clear();
    if (groundComponent.empty()) {
        Part part;
        part.id = spec.newId();
        part.name = "ground";
        part.ground = true;
        spec.parts.push_back(part);
        features.emplace_back();
        taken.insert(part.name);
    }
    for (ReadPart& read : assembly.parts) {
        Part part;
        part.id = spec.newId();
        std::string name = sanitize(read.name);
        for (int k = 2; taken.count(name); ++k)
            name = sanitize(read.name) + "_" + std::to_string(k);
        taken.insert(name);
        part.name = name;
        part.ground = spec.parts.empty();
        part.X_WP = read.X_WP;
        part.mass = read.mass;
        part.p_PPcm = read.p_PPcm;
        part.I_Pcm_P = read.I_Pcm_P;
        if (read.color) part.colorRgb = *read.color;
        for (ReadShape& s : read.shapes) {
            Shape shape;
            shape.type = s.type;
            shape.X_PG = s.X_PG;
            shape.size = s.size;
            shape.radius = s.radius;
            shape.length = s.length;
            if (s.type == ShapeType::Mesh)
                shape.mesh = std::make_shared<const TriangleMesh>(std::move(s.mesh));
            part.shapes.push_back(std::move(shape));
        }
        spec.parts.push_back(std::move(part));
        features.push_back(std::move(read.features));
    }
    return spec;
}

}  // namespace

bool isCadFile(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".step" || extension == ".stp";
}

CadImportResult importStepFile(const std::string& path, const CadImportOptions& options) {
    CadImportResult result;
    const auto start = std::chrono::steady_clock::now();
    ImportReporter report(result.diagnostics);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        report.error("", "cannot read '" + excerpt(path) + "': no such file");
        report.finish();
        return result;
    }
    if (!(options.defaultDensity > 0.0) || !std::isfinite(options.defaultDensity)) {
        report.error("", "the default density must be a positive number of kg/m³");
        report.finish();
        return result;
    }
    const auto work = [&](std::string& out, std::string& error) {
        try {
            ReadAssembly assembly;
            Reader reader(options, assembly);
            if (!reader.read(path, error)) return false;
            out = encode(assembly);
            return true;
        } catch (const Standard_Failure& failure) {
            error = std::string("OpenCASCADE failed: ") + failure.GetMessageString();
            return false;
        }
    };
    const std::uintmax_t fileBytes = std::filesystem::file_size(path, ec);
    ChildLimits limits = options.readerLimits;
    if (options.limitsFromFileSize && !ec) {
        const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                                static_cast<double>(sysconf(_SC_PAGESIZE));
        const double wanted = 16.0 * static_cast<double>(fileBytes) + double(1 << 30);
        const double allowed = physical > 0.0 ? std::min(wanted, 0.75 * physical) : wanted;
        limits.memoryBytes = std::max(limits.memoryBytes, static_cast<std::size_t>(allowed));
        limits.seconds = std::max(limits.seconds, 120.0 + static_cast<double>(fileBytes) / 1e6);
    }
    std::string bytes, failure;
    bool childFailed = false;
    if (!runInChildProcess(work, limits, bytes, failure, &childFailed)) {
        result.cancelled = options.readerLimits.cancel && options.readerLimits.cancel->load();
        // (OpenCASCADE may catch its own allocation failure and report the file unreadable.)
        if (failure.find("Standard_OutOfMemory") != std::string::npos) {
            failure =
                "ran out of its " + std::to_string(limits.memoryBytes >> 20) + " MB memory bound";
            childFailed = true;
        }
        const std::string sizes = "a file of " + std::to_string(fileBytes >> 20) + " MB";
        if (childFailed && !result.cancelled && !ec && failure.find("memory") != std::string::npos)
            failure += " reading " + sizes +
                       ": the assembly is too large for this machine's memory; import its "
                       "sub-assemblies from files of their own";
        else if (!childFailed && !ec && failure.find("OpenCASCADE can read") != std::string::npos &&
                 failure.find('(') == std::string::npos &&
                 16.0 * static_cast<double>(fileBytes) > static_cast<double>(limits.memoryBytes))
            // (An allocation that failed deep in the reader may leave no reason of its own.)
            failure += " (most likely for want of memory: its " +
                       std::to_string(limits.memoryBytes >> 20) + " MB memory bound reading " +
                       sizes + ")";
        report.error("", "cannot import '" + excerpt(path) + "': " +
                             (childFailed || result.cancelled ? "the STEP reader " : "") + failure);
        report.finish();
        return result;
    }
    ReadAssembly assembly;
    try {
        assembly = decode(bytes);
    } catch (const std::exception& e) {
        report.error("", std::string("cannot import '") + excerpt(path) +
                             "': the reader's answer is malformed: " + e.what());
        report.finish();
        return result;
    }
    for (const auto& [where, message] : assembly.warnings) report.warning(where, message);
    result.statistics = assembly.statistics;
    std::vector<std::vector<CadFeature>> features;
    std::optional<SceneSpec> built = sceneOf(assembly, path, options.groundComponent, features);
    if (!built) {
        report.error("", "no component named '" + excerpt(options.groundComponent) + "' in '" +
                             excerpt(path) + "' to be the ground");
        report.finish();
        return result;
    }
    SceneSpec& spec = *built;
    result.suggestions = suggestJoints(spec, features);
    report.finish();
    spec.name = detail::withValidUtf8(spec.name);
    spec.description = detail::withValidUtf8(spec.description);
    Diagnostics problems = validate(spec);
    result.diagnostics.insert(result.diagnostics.end(), problems.begin(), problems.end());
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
    result.statistics.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace engine::io
