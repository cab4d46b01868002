#include "ui/mainwindow/dof_status.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QStringList>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "engine/analysis/mobility.h"
#include "engine/model/model.h"
#include "ui/common/text.h"

namespace ui {

DofStatus::DofStatus(QWidget* parent) : QToolButton(parent) {
    setObjectName(QStringLiteral("DegreesOfFreedom"));
    setAutoRaise(true);
    setToolTip(tr("Degrees of freedom: click for the redundant equations and how to remove them"));
    connect(this, &QToolButton::clicked, this, &DofStatus::explain);
}

void DofStatus::explain() {
    QDialog dialog(window());
    dialog.setObjectName(QStringLiteral("DegreesOfFreedomDialog"));
    dialog.setWindowTitle(tr("Degrees of freedom"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(text().toHtmlEscaped())));
    auto* browser = new QTextBrowser;
    browser->setHtml(explanation_);
    layout->addWidget(browser, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(640, 440);
    dialog.exec();
}

void DofStatus::showScene(const engine::CompileResult* compiled) {
    explanation_.clear();
    free_ = -1;
    problem_.clear();
    if (!compiled) {
        setText(QString());
        return;
    }
    if (!compiled->model) {
        setText(tr("DOF: —"));
        problem_ = explanation_ = compiled->diagnostics.empty()
                                      ? QString()
                                      : toQString(compiled->diagnostics.front().message);
        return;
    }
    const engine::MobilityReport report = engine::mobility(compiled->model);
    if (report.ok)
        free_ = report.actualDof;
    else
        problem_ = toQString(report.message);
    if (!report.analysed) {
        setText(tr("DOF: —"));
        explanation_ = toQString(report.message);
        return;
    }
    const std::vector<std::string>& inactive = compiled->model->inactive;
    setText((report.redundantCount > 0
                 ? tr("DOF %1 · Grübler %2 · %3 redundant")
                       .arg(report.actualDof)
                       .arg(report.grueblerDof)
                       .arg(report.redundantCount)
                 : tr("DOF %1 · Grübler %2").arg(report.actualDof).arg(report.grueblerDof)) +
            (inactive.empty() ? QString() : tr(" · %1 inactive").arg(inactive.size())));
    // The explanation, as rich text: the counts, each redundant equation in words, and what
    // would remove them (a remedy shared by several equations is said once).
    auto sentence = [](const std::string& text) {
        QString out = toQString(text).toHtmlEscaped();
        if (!out.isEmpty()) out[0] = out[0].toUpper();
        return out;
    };
    QString html = tr("<p>%1 coordinates (6 per moving part), %2 equations from joints%6 and "
                      "motions. Grübler count: "
                      "%1 − %2 = %3. Rank of the constraint Jacobian at the start pose: %4, so the "
                      "mechanism moves "
                      "with <b>%5 degree(s) of freedom</b>.</p>")
                       .arg(report.coordinates)
                       .arg(report.equations)
                       .arg(report.grueblerDof)
                       .arg(report.coordinates - report.actualDof)
                       .arg(report.actualDof)
                       .arg(compiled->model->couplers.empty() ? QString() : tr(", couplers"));
    if (report.redundant.empty()) {
        html += tr("<p>No equation is redundant.</p>");
    } else {
        html += tr("<p><b>%1 redundant equation(s)</b> repeat what the others impose (Motus solves "
                   "through them, but "
                   "their share of the reactions is not unique):</p><ul>")
                    .arg(report.redundantCount);
        QStringList remedies;
        for (const engine::RedundantEquation& e : report.redundant) {
            const engine::Model& model = *compiled->model;
            const bool coupler = e.row >= model.couplerRowOffset && e.row < model.jointRows;
            const QString who = e.joint.empty() ? tr("motion '%1'").arg(toQString(e.motion))
                                : coupler       ? tr("coupler '%1'").arg(toQString(e.joint))
                                                : tr("joint '%1'").arg(toQString(e.joint));
            html += QStringLiteral("<li><b>%1</b>, %2: %3</li>")
                        .arg(who.toHtmlEscaped(), toQString(e.equation).toHtmlEscaped(),
                             sentence(e.meaning));
            if (!remedies.contains(sentence(e.remedy))) remedies << sentence(e.remedy);
        }
        html += tr("</ul><p><b>What removes them</b></p><ul>");
        for (const QString& r : remedies) html += QStringLiteral("<li>%1</li>").arg(r);
        html += QStringLiteral("</ul>");
    }
    if (!inactive.empty()) {
        // What the count leaves out: deactivated, or hanging on what is.
        html += tr("<p><b>Left out of the model</b> (kept in the scene):</p><ul>");
        for (const std::string& line : inactive)
            html += QStringLiteral("<li>%1</li>").arg(toQString(line).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    if (!report.ok) html += QStringLiteral("<p>%1</p>").arg(sentence(report.message));
    explanation_ = html;
}

int DofStatus::freeDegreesOfFreedom(QString* problem) const {
    if (free_ < 0 && problem) *problem = problem_;
    return free_;
}

}  // namespace ui
