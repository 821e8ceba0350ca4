// The gz-transport topic each model plugin of an SDF model subscribes or publishes to,
// derived exactly as gz-sim 8 (Harmonic) derives it in each system's Configure, with
// libsdformat reading the plugin's elements and ign-transport's TopicUtils (the same
// AsValidTopic / FullyQualifiedName code as gz-transport 13) cleaning the names.
//
// Built once per test session by tests/conftest.py (fixture gz_topics):
//   g++ -std=c++17 gz_topics.cc $(pkg-config --cflags --libs sdformat12 ignition-transport11)
//
// usage: gz_topics MODEL.sdf [SPAWNED_NAME]
//   SPAWNED_NAME: the name the model entity gets in Gazebo (model.Name(_ecm));
//   default the SDF's <model name>.
// Prints one line per plugin: "<system> <joint or -> <fully qualified topic>"
// (the partition left out: the bridge and the system share one).
#include <iostream>
#include <string>

#include <ignition/transport/TopicUtils.hh>
#include <sdf/sdf.hh>

using TopicUtils = ignition::transport::TopicUtils;

// What a transport::Node with the default (empty) namespace subscribes or advertises
// on for `topic`: Node::Subscribe / Node::Advertise -> TopicUtils::FullyQualifiedName.
static std::string Qualified(const std::string &topic)
{
  std::string name;
  if (topic.empty() || !TopicUtils::FullyQualifiedName("", "", topic, name))
    return "<invalid>";
  // "@<partition>@<name>": drop the (empty) partition prefix.
  return name.substr(name.find('@', 1) + 1);
}

// gz-sim src/systems/thruster/Thruster.cc, Thruster::Configure (gz-sim8 branch), the
// topic part; gz-maritime's gz_thruster/src/Thruster.cc Thruster::Configure is the same
// but for the default topic's last segment in normalised mode (cmd_normalized).
static std::string ThrusterTopic(const sdf::ElementPtr &_sdf, const std::string &modelName, bool maritime)
{
  std::string ns = modelName;
  if (_sdf->HasElement("namespace"))
    ns = _sdf->Get<std::string>("namespace");
  auto jointName = _sdf->Get<std::string>("joint_name");
  std::string topic;
  if (_sdf->HasElement("topic"))
    topic = TopicUtils::AsValidTopic(_sdf->Get<std::string>("topic"));
  bool angvel = _sdf->HasElement("use_angvel_cmd") && _sdf->Get<bool>("use_angvel_cmd");
  bool normalized = maritime && _sdf->HasElement("use_normalized_cmd") && _sdf->Get<bool>("use_normalized_cmd");
  if (normalized)
    angvel = false;
  std::string thrusterTopic;
  if (!topic.empty())
    thrusterTopic = TopicUtils::AsValidTopic(ns + "/" + topic);
  else if (!angvel)
    thrusterTopic = TopicUtils::AsValidTopic("/model/" + ns + "/joint/" + jointName +
                                             (normalized ? "/cmd_normalized" : "/cmd_thrust"));
  else
    thrusterTopic = TopicUtils::AsValidTopic("/model/" + ns + "/joint/" + jointName + "/cmd_vel");
  return thrusterTopic;
}

// gz-sim src/systems/joint_position_controller/JointPositionController.cc, Configure.
static std::string JointPositionTopic(const sdf::ElementPtr &_sdf, const std::string &modelName)
{
  auto jointName = _sdf->Get<std::string>("joint_name");
  int jointIndex = _sdf->HasElement("joint_index") ? _sdf->Get<int>("joint_index") : 0;
  std::string topic = TopicUtils::AsValidTopic("/model/" + modelName + "/joint/" + jointName + "/" +
                                               std::to_string(jointIndex) + "/cmd_pos");
  if (_sdf->HasElement("topic"))
    topic = TopicUtils::AsValidTopic(_sdf->Get<std::string>("topic"));
  return topic;
}

// gz-sim src/systems/joint_state_publisher/JointStatePublisher.cc, Configure / PostUpdate.
static std::string JointStateTopic(const sdf::ElementPtr &_sdf, const std::string &worldName,
                                   const std::string &modelName)
{
  if (_sdf->HasElement("topic"))
    return _sdf->Get<std::string>("topic");
  return std::string("/world/") + worldName + "/model/" + modelName + "/joint_state";
}

int main(int argc, char **argv)
{
  if (argc < 2)
  {
    std::cerr << "usage: gz_topics MODEL.sdf [SPAWNED_NAME]" << std::endl;
    return 2;
  }
  sdf::Root root;
  sdf::Errors errors = root.Load(argv[1]);
  if (!errors.empty() || root.Model() == nullptr)
  {
    for (const auto &e : errors)
      std::cout << argv[1] << ": " << e << std::endl;
    return 1;
  }
  const sdf::Model *model = root.Model();
  std::string modelName = argc > 2 ? argv[2] : model->Name();
  sdf::ElementPtr elem = model->Element();
  for (sdf::ElementPtr p = elem->HasElement("plugin") ? elem->GetElement("plugin") : nullptr; p;
       p = p->GetNextElement("plugin"))
  {
    auto name = p->Get<std::string>("name");
    std::string joint = p->HasElement("joint_name") ? p->Get<std::string>("joint_name") : "-";
    if (name == "gz::sim::systems::Thruster")
      std::cout << "thruster " << joint << " " << Qualified(ThrusterTopic(p, modelName, false)) << std::endl;
    else if (name == "gz::sim::maritime::Thruster")
      std::cout << "thruster " << joint << " " << Qualified(ThrusterTopic(p, modelName, true)) << std::endl;
    else if (name == "gz::sim::systems::JointPositionController")
      std::cout << "joint_position " << joint << " " << Qualified(JointPositionTopic(p, modelName)) << std::endl;
    else if (name == "gz::sim::systems::JointStatePublisher")
      std::cout << "joint_state - " << Qualified(JointStateTopic(p, "world", modelName)) << std::endl;
  }
  return 0;
}
