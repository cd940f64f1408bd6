/// \file
/// The connectors built into the engine, and their one-time registration.
#pragma once

#include <memory>

#include "floe/sqlengine/connector.h"

namespace floe::sqlengine {

std::shared_ptr<const Connector> MakeIcebergConnector();
std::shared_ptr<const Connector> MakeDatagenConnector();
std::shared_ptr<const Connector> MakeFilesystemConnector();
std::shared_ptr<const Connector> MakePrintConnector();
std::shared_ptr<const Connector> MakeBlackholeConnector();
std::shared_ptr<const Connector> MakeUserDefinedConnector();

/// Registers the built-in connectors (once; later calls do nothing).
void RegisterBuiltinConnectors();

}  // namespace floe::sqlengine
