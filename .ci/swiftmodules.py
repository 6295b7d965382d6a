"""What the .ci checks share: the library products, and the flags that let swiftc and
swift-symbolgraph-extract read the modules `swift build` made (the C modules' maps and headers).

    python3 .ci/swiftmodules.py        prints the library products, one per line (for build-docs)
"""
import glob, os, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LIBRARIES = """Sluice SluiceCurl SluiceHeaders SluiceURLEncoding SluiceSigning SluiceGzip SluiceLogging SluiceRetry SluiceCache
SluiceCacheRedis SluiceReachability SluiceHUD SluiceOutbox SluiceDownload SluiceMultipart SluiceXML SluiceEncryption SluiceServerSentEvents
SluiceStandard SluiceTesting SluiceResilience SluiceRateLimitRedis SluiceHTTPTypes SluiceOpenAPI SluiceSwiftLog SluiceMetrics SluiceTracing""".split()


def bin_path():
    """The debug build's products."""
    return subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip()


def module_flags(bin):
    """-I for the Swift modules and -Xcc flags for the C modules' maps and headers."""
    flags = ["-I", os.path.join(bin, "Modules")]
    for map in glob.glob(os.path.join(ROOT, "Sources/*/module.modulemap")) + glob.glob(os.path.join(bin, "*.build/module.modulemap")):
        flags += ["-Xcc", "-fmodule-map-file=" + map]
    for include in glob.glob(os.path.join(ROOT, "Sources/*/include")):
        flags += ["-Xcc", "-I" + include]
    return flags


if __name__ == "__main__":
    print("\n".join(LIBRARIES))
