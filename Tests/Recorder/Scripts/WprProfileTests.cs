using System.Xml.Linq;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Recorder.Scripts;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Scripts;

/// <summary>Profiles/default.wprp parsed back and compared with the profile it was rendered from.</summary>
public sealed class WprProfileTests
{
    private static readonly XElement Root = XDocument.Parse(File.ReadAllText(Path.Combine(Repo.Root, "Profiles", "default.wprp"))).Root!;
    private static readonly XElement Profiles = Root.Element("Profiles")!;

    private static IEnumerable<string> Values(XElement? parent, string child) => parent?.Elements(child).Select(e => (string)e.Attribute("Value")!) ?? [];

    private static XElement Provider(string guid) => Profiles.Elements("EventProvider").Single(e => (string?)e.Attribute("Name") == guid);

    [Fact]
    public void System_collector_samples_cpu_with_context_switches_ready_thread_and_their_stacks()
    {
        Assert.Equal("WindowsPerformanceRecorder", Root.Name.LocalName);
        Assert.Equal("NT Kernel Logger", (string?)Profiles.Element("SystemCollector")!.Attribute("Name"));
        var system = Profiles.Element("SystemProvider")!;
        Assert.Equal(["ProcessThread", "Loader", "SampledProfile", "CSwitch", "ReadyThread"], Values(system.Element("Keywords"), "Keyword"));
        Assert.Equal(["SampledProfile", "CSwitch", "ReadyThread"], Values(system.Element("Stacks"), "Stack"));
    }

    [Fact]
    public void Clr_provider_has_the_profile_keywords_level_and_filters()
    {
        var profile = ProfileCatalog.Get("default");
        var spec = profile.Providers.Single(p => p.Name == KeywordNames.ClrProvider);
        var clr = Provider("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
        Assert.Equal("5", (string?)clr.Attribute("Level"));
        Assert.Equal("true", (string?)clr.Attribute("Stack"));
        Assert.Equal([$"0x{spec.KeywordMask:X}"], Values(clr.Element("Keywords"), "Keyword"));
        var stacks = clr.Element("StackFilters")!;
        Assert.Equal("true", (string?)stacks.Attribute("FilterIn"));
        Assert.Equal(spec.Etw!.StackEventIds.Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)), Values(stacks, "EventId"));
        Assert.Contains("80", Values(stacks, "EventId")); // ExceptionThrown: who threw, per serializer
        var events = clr.Element("EventFilters")!;
        Assert.Equal("false", (string?)events.Attribute("FilterIn"));
        Assert.Equal(spec.Etw.DisabledEventIds.Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)), Values(events, "EventId"));
    }

    [Fact]
    public void Run_event_source_and_rundown_are_collected()
    {
        var runs = Provider(RunEvents.ProviderGuid.ToString("D"));
        Assert.Equal("4", (string?)runs.Attribute("Level"));
        Assert.Null(runs.Attribute("Stack"));
        Assert.Contains(runs.Nodes().OfType<XComment>(), c => c.Value.Contains(RunEvents.ProviderName, StringComparison.Ordinal));
        var rundown = Provider("a669021c-c450-4609-a035-5af59af4df18");
        Assert.Equal(["0x1B8"], Values(rundown.Element("CaptureStateOnSave"), "Keyword"));
    }

    [Fact]
    public void Rundown_is_capture_state_only_in_a_collector_of_its_own()
    {
        // Without CaptureStateOnly WPR enables the provider for the whole session (a rundown at start, events throughout).
        var rundown = Provider("a669021c-c450-4609-a035-5af59af4df18");
        Assert.Equal("true", (string?)rundown.Attribute("CaptureStateOnly"));
        Assert.Null(rundown.Element("Keywords"));
        var file = Profiles.Elements("Profile").Single(p => (string?)p.Attribute("LoggingMode") == "File");
        var collectors = file.Element("Collectors")!.Elements("EventCollectorId").ToList();
        Assert.Equal([WprProfileGenerator.EventCollectorId, WprProfileGenerator.RundownCollectorId], collectors.Select(c => (string)c.Attribute("Value")!));
        Assert.DoesNotContain((string)rundown.Attribute("Id")!, Values(collectors[0].Element("EventProviders"), "EventProviderId"));
        Assert.Equal([(string)rundown.Attribute("Id")!], Values(collectors[1].Element("EventProviders"), "EventProviderId"));
        Assert.Single(Profiles.Elements("EventCollector"), c => (string?)c.Attribute("Id") == WprProfileGenerator.RundownCollectorId);
    }

    [Fact]
    public void Profiles_reference_only_defined_collectors_and_providers_in_file_and_memory_mode()
    {
        var ids = Profiles.Elements().Select(e => (string?)e.Attribute("Id")).Where(i => i is not null).ToHashSet();
        var file = Profiles.Elements("Profile").Single(p => (string?)p.Attribute("LoggingMode") == "File");
        var referenced = file.Descendants().Where(e => e.Name.LocalName.EndsWith("Id", StringComparison.Ordinal)).Select(e => (string)e.Attribute("Value")!).ToList();
        Assert.NotEmpty(referenced);
        Assert.All(referenced, r => Assert.Contains(r, ids));
        Assert.Equal(4, file.Descendants("EventProviderId").Count()); // CLR, run events, BenchmarkDotNet's engine, rundown
        var memory = Profiles.Elements("Profile").Single(p => (string?)p.Attribute("LoggingMode") == "Memory");
        Assert.Equal((string?)file.Attribute("Id"), (string?)memory.Attribute("Base"));
        Assert.Equal((string?)file.Attribute("Name"), (string?)memory.Attribute("Name"));
    }
}
