using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// Debian's headless Chromium, run the way the report tests need it: a fresh profile, no background traffic, and
/// every host name unresolvable, so a page that tried to load anything from the network would visibly fail.
/// </summary>
public static class Chromium
{
    /// <summary>The browser, or null with the reason it is missing.</summary>
    public static (string? Path, string Reason) Find()
    {
        var fromEnv = Environment.GetEnvironmentVariable("ESP_CHROMIUM");
        foreach (var candidate in new[] { fromEnv, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome" })
            if (!string.IsNullOrEmpty(candidate) && File.Exists(candidate)) return (candidate, "");
        return (null, "headless Chromium is not installed (looked for $ESP_CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome). "
            + "Install Debian's package: `apt-get install -y chromium` (scripts/test.sh, the README's test command, does this as root).");
    }

    public static string RequirePath()
    {
        var (path, reason) = Find();
        if (path is null)
        {
            // Printed as well as failed: a missing browser must never look like a passing browser test.
            Console.Error.WriteLine("SKIPPED BROWSER CHECK: " + reason);
            Assert.Fail(reason);
        }
        return path;
    }

    public static ProcessRunner.Result Run(string page, params string[] extra)
    {
        var profile = Repo.NewTempDir("chromium-profile");
        try
        {
            string[] args =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", $"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=10000", "--hide-scrollbars",
                .. extra, new Uri(Path.GetFullPath(page)).AbsoluteUri,
            ];
            return ProcessRunner.Run(RequirePath(), args, TimeSpan.FromMinutes(2));
        }
        finally
        {
            try { Directory.Delete(profile, recursive: true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
        }
    }
}
