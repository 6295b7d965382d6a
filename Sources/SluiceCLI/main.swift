// sluice: an HTTP client built from Sluice's middleware. See `sluice --help`.
import Foundation
import SluiceCommandLine

exit(await SluiceCommand(arguments: Array(CommandLine.arguments.dropFirst())).runInterruptibly())
