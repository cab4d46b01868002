#include "tests/support/cad_examples.h"

#include <BRepAlgoAPI_Cut.hxx>
#include <BRepBuilderAPI_Transform.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <BRep_Builder.hxx>
#include <Interface_Static.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Quantity_Color.hxx>
#include <STEPCAFControl_Writer.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopoDS_Compound.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_ColorTool.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <gp_Ax2.hxx>
#include <gp_Trsf.hxx>

#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace engine::test {
namespace {

constexpr double kPinRadius = 5.0, kThickness = 10.0, kWidth = 20.0;

// A link plate in the x-y plane from `from` to `to` (rounded ends left square), z from `z0` to
// z0 + thickness, with a hole Ø10 through it at each point of `holes`.
TopoDS_Shape plate(const gp_Pnt2d& from, const gp_Pnt2d& to, double z0,
                   const std::vector<gp_Pnt2d>& holes) {
    const double dx = to.X() - from.X(), dy = to.Y() - from.Y();
    const double length = std::hypot(dx, dy);
    TopoDS_Shape shape = BRepPrimAPI_MakeBox(gp_Pnt(-kWidth / 2, -kWidth / 2, 0), length + kWidth,
                                             kWidth, kThickness)
                             .Shape();
    gp_Trsf turn;
    turn.SetRotation(gp_Ax1(gp::Origin(), gp::DZ()), std::atan2(dy, dx));
    gp_Trsf move;
    move.SetTranslation(gp_Vec(from.X(), from.Y(), z0));
    shape = BRepBuilderAPI_Transform(shape, move * turn, true).Shape();
    for (const gp_Pnt2d& h : holes) {
        const TopoDS_Shape hole =
            BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(h.X(), h.Y(), z0), gp::DZ()), kPinRadius,
                                     kThickness)
                .Shape();
        shape = BRepAlgoAPI_Cut(shape, hole).Shape();
    }
    return shape;
}

// A pin Ø10 standing on z0, one plate thick.
TopoDS_Shape pin(const gp_Pnt2d& at, double z0) {
    return BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(at.X(), at.Y(), z0), gp::DZ()), kPinRadius,
                                    kThickness)
        .Shape();
}

TopoDS_Shape both(const TopoDS_Shape& a, const TopoDS_Shape& b) {
    TopoDS_Compound compound;
    BRep_Builder builder;
    builder.MakeCompound(compound);
    builder.Add(compound, a);
    builder.Add(compound, b);
    return compound;
}

}  // namespace

Handle(TDocStd_Document) newXdeDocument() {
    Handle(TDocStd_Document) document;
    XCAFApp_Application::GetApplication()->NewDocument("MDTV-XCAF", document);
    return document;
}

void writeStep(const Handle(TDocStd_Document) & document, const std::string& path, bool materials) {
    Message::DefaultMessenger()->ChangePrinters().Clear();  // (quiet)
    STEPCAFControl_Writer writer;
    writer.SetColorMode(true);
    writer.SetNameMode(true);
    writer.SetMaterialMode(materials);
    Interface_Static::SetCVal("write.step.unit", "MM");
    Interface_Static::SetCVal("write.step.schema", "AP214IS");
    const bool written = writer.Transfer(document, STEPControl_AsIs) &&
                         writer.Write(path.c_str()) == IFSelect_RetDone;
    document->Close();
    if (!written) throw std::runtime_error("cannot write " + path);
}

void writeFourBarStep(const std::string& path, double theta) {
    const double ground = 200, crank = 60, coupler = 180, rocker = 120;
    const gp_Pnt2d A(0, 0), D(ground, 0), B(crank * std::cos(theta), crank * std::sin(theta));
    // C: on the circle of the coupler about B and of the rocker about D, above the frame.
    const double dx = D.X() - B.X(), dy = D.Y() - B.Y(), d = std::hypot(dx, dy);
    const double along = (coupler * coupler - rocker * rocker + d * d) / (2 * d);
    const double across = std::sqrt(coupler * coupler - along * along);
    const gp_Pnt2d C(B.X() + (along * dx - across * dy) / d,
                     B.Y() + (along * dy + across * dx) / d);

    // Plates: the frame at z 0–10, crank and rocker at 10–20, coupler at 20–30.
    const TopoDS_Shape frame =
        both(plate(A, D, 0, {}), both(pin(A, kThickness), pin(D, kThickness)));
    const TopoDS_Shape crankShape = both(plate(A, B, kThickness, {A}), pin(B, 2 * kThickness));
    const TopoDS_Shape rockerShape = both(plate(D, C, kThickness, {D}), pin(C, 2 * kThickness));
    const TopoDS_Shape couplerShape = plate(B, C, 2 * kThickness, {B, C});

    Handle(TDocStd_Document) document = newXdeDocument();
    Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
    Handle(XCAFDoc_ColorTool) colors = XCAFDoc_DocumentTool::ColorTool(document->Main());
    const TDF_Label assembly = shapes->NewShape();
    TDataStd_Name::Set(assembly, "four_bar");
    // Standing up: the linkage's x-y plane turned onto the world's x-z plane.
    gp_Trsf standing;
    standing.SetRotation(gp_Ax1(gp::Origin(), gp::DX()), M_PI / 2);
    struct Link {
        const char* name;
        const TopoDS_Shape& shape;
        Quantity_Color color;
    };
    for (const Link& link :
         {Link{"frame", frame, Quantity_Color(0.45, 0.47, 0.5, Quantity_TOC_sRGB)},
          Link{"crank", crankShape, Quantity_Color(0.85, 0.3, 0.2, Quantity_TOC_sRGB)},
          Link{"coupler", couplerShape, Quantity_Color(0.2, 0.55, 0.85, Quantity_TOC_sRGB)},
          Link{"rocker", rockerShape, Quantity_Color(0.3, 0.7, 0.35, Quantity_TOC_sRGB)}}) {
        const TDF_Label product = shapes->AddShape(link.shape, false);
        TDataStd_Name::Set(product, link.name);
        colors->SetColor(product, link.color, XCAFDoc_ColorGen);
        const TDF_Label instance =
            shapes->AddComponent(assembly, product, TopLoc_Location(standing));
        TDataStd_Name::Set(instance, link.name);
    }
    shapes->UpdateAssemblies();
    writeStep(document, path);
}

void padStep(const std::string& path, std::size_t bytes) {
    std::string text;
    {
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot read " + path);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::size_t end = text.rfind("ENDSEC;");
    if (end == std::string::npos) throw std::runtime_error(path + " has no data section");
    std::string padding;
    for (long k = 10000000; padding.size() < bytes; ++k)
        padding += "#" + std::to_string(k) + "=CARTESIAN_POINT('',(" + std::to_string(k) +
                   ".5,1.25,-3.75));\n";
    std::ofstream out(path, std::ios::trunc);
    out << text.substr(0, end) << padding << text.substr(end);
    if (!out) throw std::runtime_error("cannot write " + path);
}

void writeLinkChainStep(const std::string& path, int links) {
    const double pitch = 50;
    Handle(TDocStd_Document) document = newXdeDocument();
    Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
    const TDF_Label chain = shapes->NewShape();
    TDataStd_Name::Set(chain, "chain");
    for (int k = 0; k < links; ++k) {
        const gp_Pnt2d from(k * pitch, 0), to((k + 1) * pitch, 0);
        const TopoDS_Shape link =
            both(plate(from, to, k * kThickness, {from}), pin(to, (k + 1) * kThickness));
        const TDF_Label product = shapes->AddShape(link, false);
        const std::string name = "link" + std::to_string(k + 1);
        TDataStd_Name::Set(product, name.c_str());
        TDataStd_Name::Set(shapes->AddComponent(chain, product, TopLoc_Location()), name.c_str());
    }
    shapes->UpdateAssemblies();
    writeStep(document, path);
}

void writePinnedBlocksStep(const std::string& path) {
    const TopoDS_Shape block = BRepPrimAPI_MakeBox(40, 20, 10).Shape();
    const TopoDS_Shape holed =
        BRepAlgoAPI_Cut(
            BRepPrimAPI_MakeBox(40, 20, 10).Shape(),
            BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(20, 10, 0), gp::DZ()), 4, 10).Shape())
            .Shape();
    const TopoDS_Shape peg =
        BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(20, 10, 0), gp::DZ()), 4, 20).Shape();
    Handle(TDocStd_Document) document = newXdeDocument();
    Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
    Handle(XCAFDoc_ColorTool) colors = XCAFDoc_DocumentTool::ColorTool(document->Main());
    const TDF_Label top = shapes->NewShape();
    TDataStd_Name::Set(top, "pinned");
    const TDF_Label sub = shapes->NewShape();
    TDataStd_Name::Set(sub, "upper");
    const TDF_Label base = shapes->AddShape(block, false);
    TDataStd_Name::Set(base, "base");
    colors->SetColor(base, Quantity_Color(0.8, 0.5, 0.2, Quantity_TOC_sRGB), XCAFDoc_ColorGen);
    const TDF_Label plate = shapes->AddShape(holed, false);
    TDataStd_Name::Set(plate, "plate");
    const TDF_Label pinLabel = shapes->AddShape(peg, false);
    TDataStd_Name::Set(pinLabel, "pin");
    gp_Trsf up;
    up.SetTranslation(gp_Vec(0, 0, 10));
    shapes->AddComponent(top, base, TopLoc_Location());
    shapes->AddComponent(sub, plate, TopLoc_Location());
    shapes->AddComponent(sub, pinLabel, TopLoc_Location());
    shapes->AddComponent(top, sub, TopLoc_Location(up));
    shapes->UpdateAssemblies();
    writeStep(document, path);
}

}  // namespace engine::test
