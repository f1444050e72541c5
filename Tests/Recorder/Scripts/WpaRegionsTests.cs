using System.Xml.Linq;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Scripts;

/// <summary>The committed WPA regions files: well-formed, right providers, event ids, versions and matching.</summary>
public sealed class WpaRegionsTests
{
    private const string Clr = "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}";

    private static List<XElement> Regions(string file)
    {
        var doc = XDocument.Parse(File.ReadAllText(Path.Combine(Repo.Root, "wpa-regions", file)));
        Assert.Equal("InstrumentationManifest", doc.Root!.Name.LocalName);
        var root = doc.Root.Element("Instrumentation")!.Element("Regions")!.Element("RegionRoot")!;
        Assert.True(Guid.TryParse((string?)root.Attribute("Guid"), out _));
        return root.Elements("Region").ToList();
    }

    private static (string Provider, string Id, string Version) Event(XElement region, string endpoint)
    {
        var e = region.Element(endpoint)!.Element("Event")!;
        return ((string)e.Attribute("Provider")!, (string)e.Attribute("Id")!, (string)e.Attribute("Version")!);
    }

    private static string? Payload(XElement region, string endpoint, string field) =>
        (string?)region.Element(endpoint)!.Elements("PayloadIdentifier").SingleOrDefault(p => (string?)p.Attribute("FieldName") == field)?.Attribute("FieldValue");

    [Fact]
    public void Gc_activity_per_generation_runs_from_GCStart_filtered_by_depth_to_GCEnd()
    {
        var regions = Regions("GcActivity.xml");
        for (var gen = 0; gen <= 2; gen++)
        {
            var r = regions.Single(x => (string?)x.Attribute("Name") == $"GC-Gen{gen}");
            Assert.Equal((Clr, "1", "2"), Event(r, "Start"));
            Assert.Equal((Clr, "2", "1"), Event(r, "Stop"));
            Assert.Equal(gen.ToString(System.Globalization.CultureInfo.InvariantCulture), Payload(r, "Start", "Depth"));
            Assert.Equal(gen.ToString(System.Globalization.CultureInfo.InvariantCulture), Payload(r, "Stop", "Depth"));
            var match = r.Element("Match")!.Element("Event")!;
            Assert.Equal("true", (string?)match.Attribute("PID"));
            Assert.Equal("Count", (string?)match.Element("Payload")!.Attribute("FieldName")); // the GC number pairs start and end
        }
    }

    [Fact]
    public void Suspensions_run_from_SuspendEEStart_to_RestartEEStop_on_one_thread()
    {
        var r = Regions("GcActivity.xml").Single(x => (string?)x.Attribute("Name") == "GC-Suspension");
        Assert.Equal((Clr, "9", "1"), Event(r, "Start"));
        Assert.Equal((Clr, "3", "1"), Event(r, "Stop"));
        var match = r.Element("Match")!.Element("Event")!;
        Assert.Equal("true", (string?)match.Attribute("TID"));
    }

    [Fact]
    public void One_region_per_run_from_RunStart_to_RunStop_on_the_worker_thread_named_by_payload()
    {
        var regions = Regions("BenchmarkRuns.xml");
        var provider = "{" + RunEvents.ProviderGuid.ToString("D") + "}";
        Assert.Equal(["Serializer", "Operation", "Objects"], regions.Select(r => (string)r.Element("Naming")!.Element("PayloadBased")!.Attribute("NameField")!));
        foreach (var r in regions)
        {
            Assert.Equal((provider, RunEvents.RunStartId.ToString(System.Globalization.CultureInfo.InvariantCulture), RunEvents.RunStartStopVersion.ToString(System.Globalization.CultureInfo.InvariantCulture)), Event(r, "Start"));
            Assert.Equal((provider, RunEvents.RunStopId.ToString(System.Globalization.CultureInfo.InvariantCulture), RunEvents.RunStartStopVersion.ToString(System.Globalization.CultureInfo.InvariantCulture)), Event(r, "Stop"));
            var match = r.Element("Match")!.Element("Event")!;
            // RunStart and RunStop are both written by the run's worker thread.
            Assert.Equal("true", (string?)match.Attribute("PID"));
            Assert.Equal("true", (string?)match.Attribute("TID"));
            Assert.Equal([RunEvents.Fields.Serializer, RunEvents.Fields.Operation, RunEvents.Fields.Objects, RunEvents.Fields.Run],
                match.Elements("Payload").Select(p => (string)p.Attribute("FieldName")!));
        }
    }

    [Fact]
    public void Region_guids_are_unique_across_files()
    {
        var guids = new[] { "GcActivity.xml", "BenchmarkRuns.xml" }
            .SelectMany(f => XDocument.Parse(File.ReadAllText(Path.Combine(Repo.Root, "wpa-regions", f))).Descendants()
                .Where(e => e.Name.LocalName is "Region" or "RegionRoot").Select(e => (string)e.Attribute("Guid")!)).ToList();
        Assert.Equal(guids.Count, guids.Distinct(StringComparer.OrdinalIgnoreCase).Count());
    }
}
