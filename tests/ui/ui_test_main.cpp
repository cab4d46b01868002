// GoogleTest main for the GUI tests: one QApplication for the whole run, on the xcb platform
// with a compatibility OpenGL context and no multisampling (cheap on llvmpipe).

#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include "ui/viewport/viewport_widget.h"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // keep QSettings away from the user's config
    QCoreApplication::setOrganizationName(QStringLiteral("Motus"));
    QCoreApplication::setApplicationName(QStringLiteral("motus-ui-tests"));
    ui::ViewportWidget::configureDefaultSurfaceFormat(0);
    QApplication app(argc, argv);
    return RUN_ALL_TESTS();
}
