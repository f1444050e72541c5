using System.Text.Json;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// Debian's headless Chromium, run the way the report tests need it: a fresh profile, no background traffic, and
/// every host name unresolvable, so a page that tried to load anything from the network would visibly fail.
/// </summary>
public static partial class Chromium
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

    /// <summary>
    /// A speedscope file opened in speedscope (<see cref="Viewers"/>) as `npx speedscope FILE` opens it, in the given
    /// view ("left-heavy": the flame graph), and every text speedscope drew on its canvases: the page wraps
    /// fillText before speedscope loads, then writes what was drawn into a pre element that --dump-dom shows: once the
    /// flame graph's root (its thread) is drawn and 2 s have passed, or at 9 s (one run drew only its axis at 5 s).
    /// </summary>
    public static IReadOnlyList<string> SpeedscopeLabels(string speedscopeFile, string view = "left-heavy")
    {
        var release = Path.Combine(Viewers.Require("speedscope"), "dist", "release");
        var dir = Repo.NewTempDir("speedscope");
        var loader = Path.Combine(dir, "profile.js");
        File.WriteAllText(loader, $"speedscope.loadFileFromBase64({JsonSerializer.Serialize(Path.GetFileName(speedscopeFile))}, \"{Convert.ToBase64String(File.ReadAllBytes(speedscopeFile))}\")");
        string Asset(string pattern) => new Uri(Directory.GetFiles(release, pattern).Single()).AbsoluteUri;
        var page = Path.Combine(dir, "speedscope.html");
        File.WriteAllText(page, $$"""
            <!DOCTYPE html><html><head><meta charset="UTF-8"><title>speedscope</title><link rel="stylesheet" href="{{Asset("speedscope-*.css")}}">
            <script>
            const drawn = new Set(), fillText = CanvasRenderingContext2D.prototype.fillText;
            CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { drawn.add(String(text)); return fillText.call(this, text, ...rest); };
            location.hash = 'localProfilePath=' + {{JsonSerializer.Serialize(loader)}} + '&view={{view}}';
            const dump = () => { const pre = document.createElement('pre'); pre.id = 'drawn'; pre.textContent = [...drawn].join('\n'); document.body.appendChild(pre); };
            let waited = 0;
            const poll = () => { waited += 500; if (waited >= 2000 && [...drawn].some(t => t.startsWith('Thread')) || waited >= 9000) dump(); else setTimeout(poll, 500); };
            setTimeout(poll, 500);
            </script></head><body><script src="{{Asset("speedscope-*.js")}}"></script></body></html>
            """);
        // Tall enough for 80 levels: at 900 px speedscope drew 28, and a heaviest path through a page fault was 37 deep.
        // On a loaded machine (CI beside other work) speedscope once drew only its time axis in the page's 9 s: the
        // frames come in a later paint. Another launch of Chromium then draws them; a broken file fails every attempt.
        string[] labels = [];
        for (var attempt = 1; attempt <= FrameAttempts && !labels.Any(t => t.StartsWith("Thread", StringComparison.Ordinal)); attempt++)
        {
            var r = Run(page, "--dump-dom", "--window-size=1280,2400");
            var drawn = DrawnText().Match(r.StdOut);
            Assert.True(drawn.Success, $"speedscope drew nothing (exit {r.ExitCode}): {(r.StdErr.Length > 2000 ? r.StdErr[^2000..] : r.StdErr)}");
            labels = System.Net.WebUtility.HtmlDecode(drawn.Groups[1].Value).Split('\n');
        }
        FileCleanup.TryDeleteDirectory(dir);
        return labels;
    }

    /// <summary>Chromium launches per file until speedscope has drawn its frames (see <see cref="SpeedscopeLabels"/>).</summary>
    private const int FrameAttempts = 3;

    [GeneratedRegex("<pre id=\"drawn\">([^<]*)</pre>")]
    private static partial Regex DrawnText();

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
            FileCleanup.TryDeleteDirectory(profile);
        }
    }

    /// <summary>
    /// Opens <paramref name="html"/> (written as probe.html beside <paramref name="page"/>, so its links still resolve)
    /// with a probe: once the page's charts are drawn, <paramref name="probe"/>, a script function taking a callback,
    /// measures the page and passes its figures to the callback, which writes them as JSON where --dump-dom prints
    /// them. <paramref name="extra"/> may add a window size, or --print-to-pdf: Chromium prints after the probe.
    /// </summary>
    public static (JsonElement Metrics, ProcessRunner.Result Run) Probe(string page, string html, string probe, params string[] extra)
    {
        var path = Path.Combine(Path.GetDirectoryName(page)!, "probe.html");
        File.WriteAllText(path, html.Replace("</body>", ProbeScript.Replace("PROBE", probe, StringComparison.Ordinal) + "</body>", StringComparison.Ordinal));
        var r = Run(path, ["--dump-dom", .. extra]);
        var m = Metrics().Match(r.StdOut);
        Assert.True(m.Success, $"no metrics in the dumped DOM; chromium exited {r.ExitCode}: {Tail(r.StdErr)}\n{Tail(r.StdOut)}");
        return (JsonDocument.Parse(System.Net.WebUtility.HtmlDecode(m.Groups[1].Value)).RootElement.Clone(), r);
    }

    private const string ProbeScript = """
        <script>//<![CDATA[
        (function () {
          function done(out) {
            var pre = document.createElement('pre');
            pre.id = 'probe-metrics';
            pre.textContent = JSON.stringify(out);
            document.body.appendChild(pre);
          }
          function ready() {
            if (document.getElementById('report-status').getAttribute('data-status') === 'pending') { setTimeout(ready, 100); return; }
            (PROBE)(done);
          }
          window.addEventListener('load', function () { setTimeout(ready, 100); });
        })();
        //]]></script>
        """;

    /// <summary>The text of one page of a PDF, laid out as printed (poppler's pdftotext -layout): a row of a grid is a line.</summary>
    public static string PdfPageText(string pdf, int page)
    {
        var tool = "/usr/bin/pdftotext";
        if (!File.Exists(tool))
        {
            const string reason = "pdftotext is not installed (the report tests read the printed report with it): `apt-get install -y poppler-utils` (scripts/test.sh does this as root).";
            Console.Error.WriteLine("SKIPPED PDF CHECK: " + reason);
            Assert.Fail(reason);
        }
        var p = page.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var r = ProcessRunner.Run(tool, ["-layout", "-f", p, "-l", p, pdf, "-"], TimeSpan.FromMinutes(1));
        Assert.True(r.ExitCode == 0, $"pdftotext exited {r.ExitCode}: {r.StdErr}");
        return r.StdOut;
    }

    public static string Tail(string s) => s.Length <= 2000 ? s : s[^2000..];

    [GeneratedRegex(@"<pre id=""probe-metrics"">([^<]*)</pre>")]
    private static partial Regex Metrics();
}
